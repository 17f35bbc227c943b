module github.com/fastxts/xts

go 1.26.8

require golang.org/x/crypto v0.59.0
