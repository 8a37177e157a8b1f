//go:build !unix

package ingest

import "io/fs"

// fileID identifies a directory for symlink loop detection. Without inode
// numbers loops are not detected by identity; MaxDepth bounds them.
type fileID struct{ dev, ino uint64 }

func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }
