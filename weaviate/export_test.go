package weaviate

import (
	"context"
	"net/http"
)

// Tenants lists the tenants of one of x's collections (for tests).
func Tenants(ctx context.Context, x *Index, class string) ([]string, error) {
	var ts []struct {
		Name string `json:"name"`
	}
	if err := x.c.do(ctx, http.MethodGet, "/v1/schema/"+class+"/tenants", nil, &ts); err != nil {
		return nil, err
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out, nil
}
