module github.com/situate/situate

go 1.26.8
