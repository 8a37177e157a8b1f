package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/situate/situate"
	"github.com/situate/situate/driver"
	"github.com/situate/situate/httpapi"
	"github.com/situate/situate/wiring"
)

func runKeys(ctx context.Context, e *env, args []string) error {
	const summary = "Manage the API keys of 'situate serve'. Keys are stored in the store as SHA-256 hashes only;\n" +
		"a new key is printed once.\n\n" +
		"  situate keys create --tenant NAME [--principals a,b] [--name LABEL]   (a reader: reads as its principals)\n" +
		"  situate keys create --tenant NAME --write [--name LABEL]   (a writer: reads and writes the whole tenant)\n" +
		"  situate keys create --tenant NAME --admin [--name LABEL]   (the tenant's administrator: also its metrics)\n" +
		"  situate keys create --server [--name LABEL]   (the operator's key: /metrics of every tenant and the process)\n" +
		"  situate keys list\n" +
		"  situate keys revoke ID"
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		// The subcommand comes first, its flags after it.
		fs := newFlagSet("keys create|list|revoke", "", summary)
		c := newConfig()
		c.flags(fs, "store", "store-url", "config")
		keyFlags(fs)
		_, err := c.parse(e, fs, []string{"--help"})
		if len(args) == 0 {
			return usagef("want a subcommand: create, list or revoke")
		}
		return err
	}
	sub, args := args[0], args[1:]
	c := newConfig()
	fs := newFlagSet("keys "+sub, "", summary)
	c.flags(fs, "store", "store-url", "config")
	tenant, principals, admin, write, name, server := keyFlags(fs)
	rest, err := c.parse(e, fs, args)
	if err != nil {
		return err
	}
	openStore := func() (backingStore, error) {
		s, _, _, err := wiring.OpenStore(ctx, c, e.wiring(), true)
		return s, err
	}
	switch sub {
	case "create":
		if len(rest) > 0 {
			return usagef("create takes no arguments, got %q", rest)
		}
		var (
			secret string
			k      driver.APIKey
			err    error
		)
		switch {
		case *server && (*tenant != "" || *principals != "" || *admin || *write):
			return usagef("create --server takes no --tenant, --principals, --admin or --write")
		case *server:
			secret, k, err = httpapi.NewServerKey(*name)
		case *tenant == "":
			return usagef("create: --tenant is required (or --server for the operator's key)")
		default:
			secret, k, err = httpapi.NewKey(*tenant, *name, wiring.SplitList(*principals), *admin, *write)
		}
		if err != nil {
			return usageError{Err: err}
		}
		store, err := openStore()
		if err != nil {
			return err
		}
		defer store.Close()
		if err := store.CreateKey(ctx, k); err != nil {
			return err
		}
		if *server {
			fmt.Fprintf(e.stderr, "created server key %s (shown once; keep it secret):\n", k.ID)
		} else {
			fmt.Fprintf(e.stderr, "created key %s for tenant %s (shown once; keep it secret):\n", k.ID, k.Tenant)
		}
		fmt.Fprintln(e.stdout, secret)
		return nil
	case "list":
		if len(rest) > 0 {
			return usagef("list takes no arguments, got %q", rest)
		}
		store, err := openStore()
		if err != nil {
			return err
		}
		defer store.Close()
		keys, err := store.Keys(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tTENANT\tNAME\tROLE\tPRINCIPALS\tCREATED\tREVOKED")
		for _, k := range keys {
			role := "read"
			if k.Admin {
				role = "admin"
			} else if k.Write {
				role = "write"
			}
			revoked := "-"
			if !k.RevokedAt.IsZero() {
				revoked = k.RevokedAt.UTC().Format("2006-01-02 15:04")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Tenant, orDash(k.Name), role,
				orDash(strings.Join(k.Principals, ",")), k.CreatedAt.UTC().Format("2006-01-02 15:04"), revoked)
		}
		return tw.Flush()
	case "revoke":
		if len(rest) != 1 {
			return usagef("revoke takes one key ID")
		}
		store, err := openStore()
		if err != nil {
			return err
		}
		defer store.Close()
		if err := store.RevokeKey(ctx, rest[0]); err != nil {
			if errors.Is(err, situate.ErrNotFound) {
				return fmt.Errorf("revoke: no key with id %q", rest[0])
			}
			return err
		}
		fmt.Fprintf(e.stderr, "revoked key %s (running servers refuse it within seconds)\n", rest[0])
		return nil
	}
	return usagef("unknown subcommand %q: want create, list or revoke", sub)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// keyFlags defines the flags of "keys create".
func keyFlags(fs *flag.FlagSet) (tenant, principals *string, admin, write *bool, name *string, server *bool) {
	tenant = fs.String("tenant", "", "the key's tenant (create)")
	principals = fs.String("principals", "", "principals and groups the key reads as, comma-separated (create)")
	admin = fs.Bool("admin", false, "tenant administrator: reads every document, writes, sees its tenant's metrics (create)")
	write = fs.Bool("write", false, "may upsert and delete documents (create)")
	name = fs.String("name", "", "a label for listings (create)")
	server = fs.Bool("server", false, "a server key: reads /metrics with every tenant's series and the process-wide ones, no documents (create)")
	return
}
