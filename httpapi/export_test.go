package httpapi

import "context"

// HoldSearches takes n of the server's search slots, as n running searches
// would, until release is called (tests of the search queue).
func (s *Server) HoldSearches(n int) (release func()) {
	var rel []func()
	for range n {
		r, e := s.search.enter(context.Background())
		if e != nil {
			panic(e)
		}
		rel = append(rel, r)
	}
	return func() {
		for _, r := range rel {
			r()
		}
	}
}
