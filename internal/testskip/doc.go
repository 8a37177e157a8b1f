// Package testskip records why tests skip, so that a package's test run
// ends by saying how many tests were skipped and why, instead of skipping
// silently when a machine lacks the shared data, llama-server, Node.js or
// another outside part.
//
// Tests skip through Skipf (the shared helpers internal/shareddata,
// internal/llamatest and internal/mcptest do), and the package's TestMain
// is Main (or calls Run):
//
//	func TestMain(m *testing.M) { testskip.Main(m) }
//
// The summary goes to standard output after the tests ran:
//
//	testskip: 3 tests skipped: llama-server not found (2); node not found (1)
//
// go test shows it in verbose mode (-v) and for a single package run in
// its directory; in package list mode (go test ./...) it shows a passing
// package's output only with -v. .ci/run installs what the skipped tests
// need and runs them all.
package testskip
