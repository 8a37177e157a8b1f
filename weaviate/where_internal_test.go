package weaviate

import (
	"testing"

	"github.com/situate/situate/driver"
)

// The GraphQL rendering of filters: what Weaviate parses. The server-side
// meaning is checked by the conformance suite against a real Weaviate.
func TestFilterWhereGraphQL(t *testing.T) {
	has := func(p string) bool { return p == numberProp("year") }
	cases := []struct {
		name string
		f    driver.Filter
		want string
		none bool
	}{
		{name: "zero", f: driver.Filter{}, want: ""},
		{name: "docs empty", f: driver.Filter{Docs: []string{}}, none: true},
		{name: "docs", f: driver.Filter{Docs: []string{"a\"b", "c"}},
			want: `{operator: ContainsAny, path: ["doc_id"], valueText: ["a\"b","c"]}`},
		{name: "principals", f: driver.Filter{Principals: []string{"alice"}},
			want: `{operator: Or, operands: [{operator: Equal, path: ["public"], valueBoolean: true}, {operator: ContainsAny, path: ["access"], valueText: ["alice"]}]}`},
		{name: "range on a number key", f: driver.Filter{Where: []driver.Condition{{Key: "year", Op: driver.OpGt, Values: []string{"2020"}, Not: true}}},
			want: `{operator: Not, operands: [{operator: GreaterThan, path: ["mn_79656172"], valueNumber: 2020}]}`},
		{name: "range on a key no document has as a date", f: driver.Filter{Where: []driver.Condition{{Key: "year", Op: driver.OpGte, Values: []string{"2020-01-01"}}}},
			want: `{operator: Equal, path: ["doc_id"], valueText: ""}`},
		{name: "missing key reads as empty", f: driver.Filter{Metadata: map[string]string{"k": ""}},
			want: `{operator: Or, operands: [{operator: ContainsAny, path: ["meta_kv"], valueText: ["k\u001f"]}, {operator: ContainsNone, path: ["meta_keys"], valueText: ["k"]}]}`},
	}
	for _, c := range cases {
		w, none, err := filterWhere(c.f, has)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if none != c.none {
			t.Errorf("%s: none = %v, want %v", c.name, none, c.none)
		}
		got := ""
		if w != nil {
			got = w.gql()
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	if _, _, err := filterWhere(driver.Filter{Where: []driver.Condition{{Key: "y", Op: driver.OpLt, Values: []string{"soon"}}}}, has); err == nil {
		t.Error("a bound that is neither number nor date: no error")
	}
}

func TestObjectIDIsAUUIDAndStable(t *testing.T) {
	a, b := objectID("doc", 0), objectID("doc", 1)
	if a == b || a != objectID("doc", 0) || len(a) != 36 || a[14] != '5' {
		t.Errorf("objectID: %s %s", a, b)
	}
}
