module example.com/stablegate-example

go 1.19
