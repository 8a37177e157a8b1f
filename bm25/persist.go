package bm25

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// On disk an index is a directory of immutable segment files and one
// MANIFEST naming the committed segments with their sizes, checksums and
// deleted docs. A commit writes and fsyncs new segment files, then writes
// MANIFEST.tmp, fsyncs it, renames it over MANIFEST and fsyncs the
// directory. A crash at any point leaves either the old or the new MANIFEST,
// both pointing only at complete, fsynced segments; files no MANIFEST names
// are removed on the next Open. A LOCK file (flock) keeps a second process
// from opening the same directory.

const (
	manifestName  = "MANIFEST"
	manifestMagic = "SBM25MF1"
	lockName      = "LOCK"
	segPrefix     = "seg-"
	segSuffix     = ".seg"
)

func segFileName(n uint64) string { return fmt.Sprintf("%s%016x%s", segPrefix, n, segSuffix) }

// Open opens the persistent index in dir for writing, creating it if
// missing, and verifies every segment's checksum. It takes the directory's write lock (the LOCK file), waiting up
// to Options.LockWait for another writer to release it, and removes files
// that no commit references (left by an interrupted write). A damaged
// manifest or segment, or a segment the manifest names that is missing, is
// an error wrapping ErrCorrupt that names the file.
func Open(dir string, opts Options) (*Index, error) {
	ix, err := New(opts)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, fmt.Errorf("bm25 open: empty directory name")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bm25 open: %w", err)
	}
	lock, err := lockDir(dir, ix.opts.lockWait())
	if err != nil {
		return nil, err
	}
	ix.dir = dir
	ix.lock = lock
	m, err := readIndex(dir)
	if err != nil {
		lock.Close()
		return nil, err
	}
	// A writer builds on every byte (merges, repairs): it verifies the
	// whole of each segment once, where readers verify what they read.
	for _, ss := range m.segs {
		if err := ss.seg.verifyAll(); err != nil {
			lock.Close()
			return nil, fmt.Errorf("bm25 open: %w", err)
		}
	}
	ix.gen, ix.nextSeg = m.gen, m.next
	ix.snap.Store(newSnapshot(ix, m.segs, m.gen))
	removeUnreferenced(dir, m.segs)
	return ix, nil
}

// readRetries bounds how often OpenReadOnly starts over when a writer
// replaced the manifest while it was being read.
const readRetries = 50

// readRetried counts the restarts of OpenReadOnly (for tests).
var readRetried atomic.Int64

// OpenReadOnly opens the last committed state of the index in dir for
// searching. It takes no lock and writes nothing, so any number of readers
// run beside one writer (in this or another process), each seeing the
// commit that was current when it opened, as Lucene readers open a commit
// point. It reads only each segment's header, footer, per-document tables
// and block checksums, and verifies the rest block by block as searches
// read it: damage is an error wrapping ErrCorrupt when a search reaches
// it (Verify checks everything). A segment that vanishes while being opened (a writer merged it
// away) makes it read the new manifest and start over. A directory without
// an index opens as an empty index. Writes return ErrReadOnly.
func OpenReadOnly(dir string, opts Options) (*Index, error) {
	ix, err := New(opts)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, fmt.Errorf("bm25 open: empty directory name")
	}
	ix.dir = dir
	ix.readOnly = true
	for attempt := 0; ; attempt++ {
		m, err := readIndex(dir)
		if err == nil {
			ix.gen, ix.nextSeg = m.gen, m.next
			ix.snap.Store(newSnapshot(ix, m.segs, m.gen))
			return ix, nil
		}
		var missing *missingSegmentError
		if !errors.As(err, &missing) || attempt >= readRetries {
			return nil, err
		}
		// Was the manifest replaced since it was read? Then the segment was
		// merged away by a writer: read the new commit. If not, the
		// segment is really gone.
		cur, rerr := os.ReadFile(filepath.Join(dir, manifestName))
		if rerr == nil && string(cur) == string(m.raw) {
			return nil, err
		}
		readRetried.Add(1)
	}
}

// manifestState is a committed state as read from disk.
type manifestState struct {
	raw       []byte // the manifest's bytes
	segs      []snapSeg
	gen, next uint64
}

// missingSegmentError is a segment the manifest names that does not exist.
type missingSegmentError struct{ path, manifest string }

func (e *missingSegmentError) Error() string {
	return fmt.Sprintf("bm25 open: segment %s named by %s is missing", e.path, e.manifest)
}

func (e *missingSegmentError) Unwrap() error { return ErrCorrupt }

// readManifest parses a manifest; it opens no segment.
func readManifest(path string, data []byte) (m manifestState, names []manifestEntry, err error) {
	m.raw = data
	if len(data) < len(manifestMagic)+4 || string(data[:len(manifestMagic)]) != manifestMagic {
		return m, nil, fmt.Errorf("bm25 open: %s: bad header: %w", path, ErrCorrupt)
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return m, nil, fmt.Errorf("bm25 open: %s: checksum mismatch: %w", path, ErrCorrupt)
	}
	r := &reader{b: body, off: len(manifestMagic)}
	m.gen = r.uvarint()
	m.next = r.uvarint()
	n := r.int(1 << 24)
	for i := 0; i < n && r.err == nil; i++ {
		e := manifestEntry{name: strings.Clone(r.str())}
		e.size = r.uvarint()
		e.crc = uint32(r.uvarint())
		e.numDocs = r.int(1 << 31)
		e.delCount = r.int(uint64(e.numDocs))
		if r.err != nil {
			break
		}
		if !strings.HasPrefix(e.name, segPrefix) || strings.ContainsAny(e.name, `/\`) {
			return m, nil, fmt.Errorf("bm25 open: %s: bad segment name %q: %w", path, e.name, ErrCorrupt)
		}
		if e.delCount > 0 {
			e.del = make([]uint64, (e.numDocs+63)/64)
			d := uint64(0)
			for j := 0; j < e.delCount && r.err == nil; j++ {
				d += r.uvarint()
				if d >= uint64(e.numDocs) {
					r.err = fmt.Errorf("deleted doc %d of %s out of range: %w", d, e.name, ErrCorrupt)
					break
				}
				e.del[d>>6] |= 1 << (d & 63)
			}
		}
		names = append(names, e)
	}
	if r.err != nil {
		return m, nil, fmt.Errorf("bm25 open: %s: %w", path, r.err)
	}
	return m, names, nil
}

// manifestEntry is one segment as the manifest describes it.
type manifestEntry struct {
	name              string
	size              uint64
	crc               uint32
	numDocs, delCount int
	del               []uint64
}

// openEntry opens and checks the segment a manifest entry names.
func openEntry(dir, mpath string, e manifestEntry) (*segment, error) {
	segPath := filepath.Join(dir, e.name)
	seg, err := mapSegment(segPath, e.name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &missingSegmentError{path: segPath, manifest: mpath}
	}
	if err != nil {
		return nil, fmt.Errorf("bm25 open: %s: %w", segPath, err)
	}
	if uint64(len(seg.data)) != e.size || binary.LittleEndian.Uint32(seg.data[len(seg.data)-8:]) != e.crc {
		return nil, fmt.Errorf("bm25 open: %s: size or checksum differs from %s: %w", segPath, mpath, ErrCorrupt)
	}
	if seg.numDocs != e.numDocs {
		return nil, fmt.Errorf("bm25 open: %s: %d docs, manifest says %d: %w", segPath, seg.numDocs, e.numDocs, ErrCorrupt)
	}
	return seg, nil
}

func readIndex(dir string) (m manifestState, err error) {
	path := filepath.Join(dir, manifestName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, fmt.Errorf("bm25 open: %w", err)
	}
	m, entries, err := readManifest(path, data)
	if err != nil {
		return m, err
	}
	for _, e := range entries {
		seg, err := openEntry(dir, path, e)
		if err != nil {
			return m, err
		}
		m.segs = append(m.segs, snapSeg{seg: seg, del: e.del, delCount: e.delCount})
	}
	return m, nil
}

func writeManifest(dir string, gen, next uint64, segs []snapSeg) error {
	b := []byte(manifestMagic)
	b = binary.AppendUvarint(b, gen)
	b = binary.AppendUvarint(b, next)
	b = binary.AppendUvarint(b, uint64(len(segs)))
	for _, ss := range segs {
		s := ss.seg
		b = appendString(b, s.name)
		b = binary.AppendUvarint(b, uint64(len(s.data)))
		b = binary.AppendUvarint(b, uint64(binary.LittleEndian.Uint32(s.data[len(s.data)-8:])))
		b = binary.AppendUvarint(b, uint64(s.numDocs))
		b = binary.AppendUvarint(b, uint64(ss.delCount))
		prev := uint32(0)
		for d := 0; d < s.numDocs && ss.delCount > 0; d++ {
			if ss.deleted(uint32(d)) {
				b = binary.AppendUvarint(b, uint64(uint32(d)-prev))
				prev = uint32(d)
			}
		}
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	tmp := manifestName + ".tmp"
	if err := writeFileSync(dir, tmp, b); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(dir, tmp), filepath.Join(dir, manifestName)); err != nil {
		return fmt.Errorf("commit manifest: %w", err)
	}
	return syncDir(dir)
}

// writePiece is the size of the writes of writeFileSync. The page cache
// keeps a file in folios as large as the writes that made it, and a read
// through a mapping maps the whole folio it touches: written in one piece, a
// segment's random probes by searches would map (and count in their RSS)
// about four times what they read on ext4. 16 KiB pieces cost about one
// more system call per 16 KiB.
const writePiece = 16 << 10

// writeFileSync writes a new file and fsyncs it.
func writeFileSync(dir, name string, data []byte) error {
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// A file that could not be written whole is removed at once: on a full
	// disk it holds the space a retry needs, and no manifest lists it.
	fail := func(err error) error {
		f.Close()
		os.Remove(path)
		return err // an *os.PathError: it names the operation and the file
	}
	for off := 0; off < len(data) || off == 0; off += writePiece {
		if _, err := f.Write(data[off:min(off+writePiece, len(data))]); err != nil {
			return fail(err)
		}
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

func removeFile(dir, name string) {
	if name != "" {
		os.Remove(filepath.Join(dir, name))
	}
}

// removeUnreferenced deletes segment files and temporary manifests left by
// writes that never committed.
func removeUnreferenced(dir string, segs []snapSeg) {
	live := map[string]bool{}
	for _, ss := range segs {
		live[ss.seg.name] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if (strings.HasPrefix(n, segPrefix) && strings.HasSuffix(n, segSuffix) && !live[n]) || n == manifestName+".tmp" {
			os.Remove(filepath.Join(dir, n))
		}
	}
}
