package glove

import (
	"testing"

	"github.com/situate/situate/internal/testskip"
)

// TestMain ends the run by saying how many tests skipped and why.
func TestMain(m *testing.M) { testskip.Main(m) }
