package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// cmdFlags is a command's flag set and the help text --help prints.
type cmdFlags struct {
	*flag.FlagSet
	usage string
	out   io.Writer
	long  map[string]string // short name -> long name, for messages and --help
}

// alias makes -short another spelling of the already defined --long, as
// cryptsetup has -d for --key-file.
func (fs *cmdFlags) alias(short, long string) {
	f := fs.Lookup(long)
	fs.Var(f.Value, short, "")
	if fs.long == nil {
		fs.long = map[string]string{}
	}
	fs.long[short] = long
}

// newFlagSet returns a flag set that reports errors through parseFlags
// instead of printing them, so that every command fails the same way: one
// line on stderr and exit status 1 (wrong parameters), the help only when
// asked for.
func newFlagSet(name, usage string, out io.Writer) *cmdFlags {
	fs := flag.NewFlagSet("xts "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &cmdFlags{FlagSet: fs, usage: usage, out: out}
}

// flagMessage rewrites an error of the flag package so that it names the
// flag GNU-style, --name (the long name for an alias such as -d), as
// every other message does.
func (fs *cmdFlags) flagMessage(msg string) string {
	for _, pre := range []string{"flag provided but not defined: ", "flag needs an argument: "} {
		if rest, ok := strings.CutPrefix(msg, pre); ok {
			name := strings.TrimLeft(rest, "-")
			what := "unknown flag"
			if pre != "flag provided but not defined: " {
				what = "missing value for"
			}
			return what + " " + fs.dashed(name)
		}
	}
	// invalid value "x" for flag -name: cause / invalid boolean value "x" for -name: cause
	for _, pre := range []string{"invalid value ", "invalid boolean value "} {
		rest, ok := strings.CutPrefix(msg, pre)
		if !ok {
			continue
		}
		val, rest, ok := strings.Cut(rest, " for ")
		if !ok {
			break
		}
		rest = strings.TrimPrefix(rest, "flag ")
		name, cause, _ := strings.Cut(strings.TrimLeft(rest, "-"), ": ")
		m := fs.dashed(name) + ": invalid value " + val
		if cause != "" && cause != "parse error" {
			m += ": " + cause
		}
		return m
	}
	return msg
}

// dashed is --name for flag name, resolving aliases.
func (fs *cmdFlags) dashed(name string) string {
	if l, ok := fs.long[name]; ok {
		return "--" + l + " (-" + name + ")"
	}
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// printFlags lists the flags GNU-style, with two dashes (both spellings
// are accepted), the value's name taken from `backquotes` in the usage,
// an alias on its long flag's line.
func printFlags(out io.Writer, fs *cmdFlags) {
	shorts := map[string]string{}
	for s, l := range fs.long {
		shorts[l] = s
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintln(out, "\nFlags:")
	fs.VisitAll(func(f *flag.Flag) {
		if _, isAlias := fs.long[f.Name]; isAlias {
			return
		}
		name, usage := flag.UnquoteUsage(f)
		dashes := "--"
		if len(f.Name) == 1 {
			dashes = "-"
		}
		line := "  " + dashes + f.Name
		if s, ok := shorts[f.Name]; ok {
			line = "  -" + s + ", --" + f.Name
		}
		if name != "" {
			line += " " + name
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(out, "%s\n      %s\n", line, usage)
	})
}

// parseFlags parses args allowing flags and positional arguments in any
// order (`xts encrypt in.img out.img --key-file k` works as well as the
// flags-first form); "--" ends the flags. --help prints the usage to
// stdout and returns errHelpShown.
func parseFlags(fs *cmdFlags, args []string) ([]string, error) {
	var pos []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(fs.out, fs.usage)
			printFlags(fs.out, fs)
			fmt.Fprint(fs.out, "\n"+exitHelp)
			return nil, errHelpShown
		}
		if err != nil {
			return nil, &usageError{fs.flagMessage(err.Error())}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// The flag package stops before the first non-flag, or just after
		// a "--" that it consumed: then everything left is positional.
		if i := len(args) - len(rest) - 1; i >= 0 && args[i] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseInts parses a comma-separated list of positive integers.
func parseInts(flagName, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v <= 0 {
			return nil, usagef("--%s: %q is not a positive integer", flagName, f)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, usagef("--%s: empty list", flagName)
	}
	return out, nil
}

// parseList splits a comma-separated list, checking each entry against
// allowed (when not nil) and removing duplicates.
func parseList(flagName, s string, allowed []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" || seen[f] {
			continue
		}
		if allowed != nil && !slices.Contains(allowed, f) {
			return nil, usagef("--%s: unknown value %q (one of %s)", flagName, f, strings.Join(allowed, ", "))
		}
		seen[f] = true
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, usagef("--%s: empty list", flagName)
	}
	return out, nil
}
