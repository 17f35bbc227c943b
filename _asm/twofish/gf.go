package main

// mdsPoly is the modulus of Twofish's MDS matrix: x^8+x^6+x^5+x^3+1. The
// matrices of the multipliers come from gf2p8.MulMatrix with it.
const mdsPoly = 0x169

// signMatrix is the GF2P8AFFINEQB matrix whose every row is 0x80: each
// result bit is the input's bit 7.
const signMatrix = 0x8080808080808080
