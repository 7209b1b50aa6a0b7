// compose-check loads docker-compose.yml with the Compose specification's own
// loader (compose-go, the library Compose v2 uses) and fails on anything Compose
// would refuse: unknown keys, a depends_on naming a missing service, bad
// interpolation, invalid values. There is no Docker engine on the machines that
// run CI, so without this the file would never be read by anything.
//
// Usage: compose-check [path/to/docker-compose.yml]
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	file := "docker-compose.yml"
	if len(os.Args) > 1 {
		file = os.Args[1]
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		fail(err)
	}
	// The variables an operator must set are given placeholder values, so that
	// interpolation (and its `:?` checks) runs exactly as `docker compose up` would.
	opts, err := cli.NewProjectOptions(
		[]string{abs},
		cli.WithWorkingDirectory(filepath.Dir(abs)),
		cli.WithOsEnv,
		cli.WithConsistency(true),
		cli.WithResolvedPaths(true),
	)
	if err != nil {
		fail(err)
	}
	project, err := opts.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	names := project.ServiceNames()
	sort.Strings(names)
	fmt.Printf("compose-check: %s is valid (%d services: %v)\n", file, len(names), names)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "compose-check: %v\n", err)
	os.Exit(1)
}
