// Package report writes situate's results for people to read: a check
// report, the sizes and lists in it, and any text that came from a
// document, which is shown with control characters escaped so that a
// document cannot drive the terminal it is printed on. Every front end
// that prints text (the command line, logs) shares it; JSON output needs
// none of it.
package report
