package shareddata_test

import (
	"testing"

	"github.com/situate/situate/internal/shareddata"
)

func TestCACMCount(t *testing.T) {
	if n := len(shareddata.CACM(t)); n != 3204 {
		t.Fatalf("%d CACM documents, want 3204", n)
	}
}
