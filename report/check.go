package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/situate/situate"
)

// Backend prints the index backend's lines of a check: name is the
// backend's (weaviate), urls where it was asked.
func Backend(w io.Writer, name string, urls []string, a situate.CheckArm) {
	switch {
	case a.Err != nil:
		fmt.Fprintf(w, "%-10s UNREADABLE %s: %v\n", name, strings.Join(urls, ","), a.Err)
	case !a.OK():
		fmt.Fprintf(w, "%-10s OUT OF LINE holds %d of the store's %d documents at their versions\n", name, a.Docs-len(a.Extra), a.WantDocs)
	default:
		fmt.Fprintf(w, "%-10s ok %d documents at the store's versions\n", name, a.Docs)
	}
	if len(a.Missing) > 0 {
		fmt.Fprintf(w, "  missing %d documents the store holds (or at another version): %s\n", len(a.Missing), IDs(a.Missing))
	}
	if len(a.Extra) > 0 {
		fmt.Fprintf(w, "  extra   %d documents the store does not hold: %s\n", len(a.Extra), IDs(a.Extra))
	}
}

// Check prints a check report, a line per part: the database at where
// (a path, or "postgres HOST:PORT/DB"), each index with its files, the
// documents missing from or extra in an index, and what a repair did.
func Check(w io.Writer, dbPath string, r situate.CheckReport) {
	switch {
	case r.StoreErr != nil:
		fmt.Fprintf(w, "%-10s DAMAGED %s: %v\n", "database", dbPath, r.StoreErr)
	case len(r.StoreProblems) > 0:
		fmt.Fprintf(w, "%-10s DAMAGED %s: the integrity check found %d problems:\n", "database", dbPath, len(r.StoreProblems))
		for i, p := range r.StoreProblems {
			if i == 10 {
				fmt.Fprintf(w, "             ... and %d more\n", len(r.StoreProblems)-i)
				break
			}
			fmt.Fprintf(w, "             %s\n", Quote(p))
		}
	case strings.HasPrefix(dbPath, "postgres "):
		fmt.Fprintf(w, "%-10s ok %s (records, chunks and change counter): %d documents, %d chunks\n", "database", dbPath, r.Documents, r.Chunks)
	default:
		fmt.Fprintf(w, "%-10s ok %s (integrity_check): %d documents, %d chunks\n", "database", dbPath, r.Documents, r.Chunks)
	}
	for _, a := range r.Arms {
		switch {
		case a.Err != nil:
			fmt.Fprintf(w, "%-10s DAMAGED %s: %v\n", a.Name, a.Dir, a.Err)
		case a.Damaged():
			fmt.Fprintf(w, "%-10s DAMAGED\n", a.Name)
		case len(a.Files) == 0 && len(a.Missing) > 0:
			fmt.Fprintf(w, "%-10s MISSING %s holds no index\n", a.Name, a.Dir)
		case !a.OK():
			fmt.Fprintf(w, "%-10s OUT OF LINE %d documents, %d chunks (database: %d chunks)\n", a.Name, a.Groups, a.Docs, a.WantDocs)
		default:
			fmt.Fprintf(w, "%-10s ok %d documents, %d chunks\n", a.Name, a.Groups, a.Docs)
		}
		for _, f := range a.Files {
			if f.Err != nil {
				fmt.Fprintf(w, "  DAMAGED %s: %v\n", f.Path, f.Err)
			} else {
				fmt.Fprintf(w, "  ok      %s (%s)\n", f.Path, Bytes(f.Size))
			}
		}
		if len(a.Missing) > 0 {
			fmt.Fprintf(w, "  missing %d documents the database holds: %s\n", len(a.Missing), IDs(a.Missing))
		}
		if len(a.Extra) > 0 {
			fmt.Fprintf(w, "  extra   %d documents the database does not hold: %s\n", len(a.Extra), IDs(a.Extra))
		}
	}
	if len(r.Pending) > 0 {
		fmt.Fprintf(w, "%-10s %d documents whose index update was interrupted: %s\n", "pending", len(r.Pending), IDs(r.Pending))
	}
	if len(r.Repaired) > 0 {
		fmt.Fprintf(w, "%-10s rebuilt %s from the database\n", "repaired", strings.Join(r.Repaired, ", "))
	}
	if r.RepairErr != nil {
		fmt.Fprintf(w, "%-10s FAILED %v\n", "repair", r.RepairErr)
	}
}

// IDs lists the first five ids, quoted, and how many more there are.
func IDs(ids []string) string {
	const show = 5
	q := make([]string, 0, show)
	for i, id := range ids {
		if i == show {
			break
		}
		q = append(q, Quote(fmt.Sprintf("%q", id)))
	}
	s := strings.Join(q, ", ")
	if len(ids) > show {
		s += fmt.Sprintf(" and %d more", len(ids)-show)
	}
	return s
}

// Quote escapes control characters so a file name or finding cannot
// forge output lines.
func Quote(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return s
	}
	q := fmt.Sprintf("%q", s)
	return q[1 : len(q)-1]
}
