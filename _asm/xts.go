package main

func genXTS() {}
