package helikon_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocs_EveryExportedNameIsDocumented walks the whole module and reports
// exported declarations without a doc comment, and packages without one.
func TestDocs_EveryExportedNameIsDocumented(t *testing.T) {
	fset := token.NewFileSet()
	pkgDocs := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		if _, seen := pkgDocs[dir]; !seen {
			pkgDocs[dir] = false
		}
		if f.Doc != nil {
			pkgDocs[dir] = true
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || d.Doc != nil {
					continue
				}
				if d.Recv != nil && !receiverExported(d.Recv) {
					continue
				}
				t.Errorf("%s: %s has no doc comment", fset.Position(d.Pos()), d.Name.Name)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
							t.Errorf("%s: type %s has no doc comment", fset.Position(s.Pos()), s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && s.Doc == nil && d.Doc == nil {
								t.Errorf("%s: %s has no doc comment", fset.Position(n.Pos()), n.Name)
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, ok := range pkgDocs {
		if !ok {
			t.Errorf("package in %s has no package doc comment", dir)
		}
	}
}

func receiverExported(fl *ast.FieldList) bool {
	if len(fl.List) == 0 {
		return false
	}
	typ := fl.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.IndexExpr:
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}
