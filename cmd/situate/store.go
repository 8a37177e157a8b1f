package main

import (
	"github.com/situate/situate/wiring"
)

// backingStore is what the commands need of a store (wiring.Store).
type backingStore = wiring.Store

// storeFile and sharedDir are the SQLite database in the store directory
// and the directory of shared stores' local indexes in it.
const (
	storeFile = wiring.StoreFile
	sharedDir = wiring.SharedDir
)

// needsSQLite refuses --store-url (from a flag, the environment or the
// configuration file) for a command that works on the SQLite store only.
func needsSQLite(c *config, what string) error {
	if s := c.settings["store-url"]; s != nil && s.value != "" {
		return usagef("%s works on the SQLite store in --store only; --store-url (from %s) is not supported", what, s.origin)
	}
	return nil
}
