package sidecar

import (
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// lineIndex maps dotted key paths to the line they are written on, so
// validation that runs after decoding can still point at the source.
type lineIndex map[string]int

// indexLines walks the document's expressions. It is only called on a
// document that already decoded, so a parser error cannot occur; if one
// does, the index is simply partial and errors lose their line.
func indexLines(data []byte) lineIndex {
	idx := lineIndex{}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(e.Key())
			idx.add(&p, table, e.Key())
		case unstable.KeyValue:
			idx.keyValue(&p, table, e)
		}
	}
	return idx
}

func (idx lineIndex) keyValue(p *unstable.Parser, prefix []string, kv *unstable.Node) {
	path := append(append([]string(nil), prefix...), keyParts(kv.Key())...)
	idx.add(p, path, kv.Key())
	if v := kv.Value(); v.Kind == unstable.InlineTable {
		it := v.Children()
		for it.Next() {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				idx.keyValue(p, path, c)
			}
		}
	}
}

func (idx lineIndex) add(p *unstable.Parser, path []string, key unstable.Iterator) {
	if !key.Next() {
		return
	}
	n := key.Node()
	if n.Raw.Length == 0 && n.Raw.Offset == 0 {
		return
	}
	k := strings.Join(path, ".")
	if _, ok := idx[k]; !ok {
		idx[k] = p.Shape(n.Raw).Start.Line
	}
}

func keyParts(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// line returns the line of the longest indexed prefix of key.
func (idx lineIndex) line(key string) int {
	for k := key; k != ""; {
		if l, ok := idx[k]; ok {
			return l
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return 0
}
