package main

func genCPUID() {}
