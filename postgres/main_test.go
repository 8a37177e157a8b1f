package postgres

import (
	"context"
	"fmt"
	"github.com/situate/situate/internal/testskip"
	"os"
	"testing"

	"github.com/situate/situate/internal/pgtest"
)

// server is the PostgreSQL the tests run against, started by TestMain from
// Debian's postgresql binaries; nil when they are absent (tests skip, or
// fail when SITUATE_REQUIRE_POSTGRES is set).
var server *pgtest.Server

func TestMain(m *testing.M) {
	var startErr error
	server, startErr = pgtest.Start(context.Background())
	if startErr != nil {
		fmt.Fprintln(os.Stderr, "postgres tests:", startErr)
	}
	code := testskip.Run(m)
	if server != nil {
		server.Stop()
	}
	os.Exit(code)
}

// NewTestDatabase returns the URL of an empty database, or skips t when no
// PostgreSQL could be started.
func NewTestDatabase(t testing.TB) string {
	t.Helper()
	if server == nil {
		if os.Getenv(pgtest.RequireEnv) != "" {
			t.Fatalf("PostgreSQL is required (%s is set) but could not be started; see the log above", pgtest.RequireEnv)
		}
		testskip.Skipf(t, "PostgreSQL not available (install Debian's postgresql package; .ci/run does)")
	}
	url, err := server.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// RestartTestServer restarts the test server (fast shutdown, cutting every
// open connection) and waits until it accepts connections again.
func RestartTestServer(t *testing.T) {
	t.Helper()
	if err := server.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
}
