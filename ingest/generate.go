package ingest

//go:generate go run ./internal/genfixtures -out testdata
