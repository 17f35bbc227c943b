package main

func genKeyExpansion() {}
