package guard_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"github.com/fastxts/xts/cmd/xts/internal/guard"
)

// A command's output appears only when Commit links it into place; until
// then the directory shows nothing, and Abort (or Stop) leaves nothing.
func Example() {
	dir, _ := os.MkdirTemp("", "guard-example-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "image.enc")

	g := guard.Start(guard.Config{Stderr: os.Stderr, Command: "encrypt"})
	defer g.Stop()
	out, err := g.Create(guard.Spec{Path: path})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Fprint(out, "ciphertext")
	_, err = os.Stat(path)
	fmt.Println("before Commit, exists:", err == nil)

	if err := g.Commit(); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(path)
	fmt.Printf("after Commit: %q\n", b)

	// A second command that fails leaves the first one's file alone and
	// adds nothing.
	g2 := guard.Start(guard.Config{Stderr: os.Stderr, Command: "encrypt"})
	defer g2.Stop()
	_, err = g2.Create(guard.Spec{Path: path})
	fmt.Println(strings.ReplaceAll(err.Error(), dir, "DIR"), "- exit status", exit.Code(err))
	// Output:
	// before Commit, exists: false
	// after Commit: "ciphertext"
	// output DIR/image.enc already exists (use --force to replace it) - exit status 5
}
