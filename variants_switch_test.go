package xts

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// asmEngine's methods call a variant's routines in switches over
// asmVariant, one case per variant. Every variant behaves alike as XTS, so
// a case that called another variant's routine would pass every test and
// run instructions the policy never checked the CPU for. This test reads
// the table files: in each method, the case variantX calls exactly the
// routine METHODX (encryptX, decryptSectorsX …), and every variant has its
// case.
func TestVariantSwitches(t *testing.T) {
	methods := []string{"encrypt", "decrypt", "encryptSectors", "decryptSectors"}
	for _, file := range []string{"variants_amd64.go", "variants_arm64.go"} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var variants []string
		cases := map[string][]string{} // method -> variants it has a case for
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for _, name := range n.Names {
					if strings.HasPrefix(name.Name, "variant") {
						variants = append(variants, name.Name)
					}
				}
			case *ast.FuncDecl:
				if n.Recv == nil || len(n.Recv.List) != 1 {
					return false
				}
				if star, ok := n.Recv.List[0].Type.(*ast.StarExpr); !ok || star.X.(*ast.Ident).Name != "asmEngine" {
					return false
				}
				method := n.Name.Name
				ast.Inspect(n.Body, func(n ast.Node) bool {
					cc, ok := n.(*ast.CaseClause)
					if !ok || len(cc.List) == 0 {
						return true
					}
					if len(cc.List) != 1 {
						t.Errorf("%s: %s: a case with %d variants", file, method, len(cc.List))
						return false
					}
					v := cc.List[0].(*ast.Ident).Name
					cases[method] = append(cases[method], v)
					var calls []string
					ast.Inspect(cc, func(n ast.Node) bool {
						if call, ok := n.(*ast.CallExpr); ok {
							if id, ok := call.Fun.(*ast.Ident); ok {
								calls = append(calls, id.Name)
							}
						}
						return true
					})
					want := method + strings.TrimPrefix(v, "variant")
					if len(calls) != 1 || calls[0] != want {
						t.Errorf("%s: %s, case %s calls %v, want %s", file, method, v, calls, want)
					}
					return false
				})
			}
			return true
		})
		if len(variants) == 0 {
			t.Fatalf("%s: no variant constants", file)
		}
		for _, m := range methods {
			if got := strings.Join(cases[m], " "); got != strings.Join(variants, " ") {
				t.Errorf("%s: %s has cases %q, want one per variant %q", file, m, got, variants)
			}
		}
	}
}
