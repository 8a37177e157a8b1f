package main

import (
	"context"

	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/web"
)

// situate serve shows the search page at / with its assets under /ui/;
// they hold no data, so they are public, and the page calls the API with
// the key its user enters.
func init() {
	serveMounts = append(serveMounts, func(ctx context.Context, e *env, c *config) ([]httpapi.Mount, error) {
		h := web.Handler()
		return []httpapi.Mount{
			{Pattern: "GET /{$}", Handler: h, Public: true},
			{Pattern: "GET /ui/", Handler: h, Public: true},
		}, nil
	})
}
