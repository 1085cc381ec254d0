package helikon_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

type sumArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

func sumTool() helikon.Tool {
	return helikon.MustTool("add", "Adds two integers.", func(tc *helikon.ToolContext, in sumArgs) (int, error) { return in.A + in.B, nil })
}

// TestErrorMessages_SayEachThingOnce pins the wording of the errors a new
// user meets first: no phrase repeated, no Go internals.
func TestErrorMessages_SayEachThingOnce(t *testing.T) {
	cases := []struct {
		name    string
		run     func() error
		want    []string // substrings that must appear
		notWant []string // substrings that must not
		once    []string // substrings that must appear exactly once
	}{
		{
			name: "a second invalid call names the tool and the schema error once",
			run: func() error {
				m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":"x"}`}),
					mock.ToolCalls(mock.Call{ID: "c2", Name: "add", Args: `{"a":"x"}`}))
				a := mustAgent(t, "calc", m, helikon.WithTools(sumTool()))
				_, err := helikon.Collect(a.Run(context.Background(), nil, helikon.UserText("q")))
				if !errors.Is(err, helikon.ErrInvalidArgs) {
					t.Errorf("err = %v; want it to match ErrInvalidArgs", err)
				}
				return err
			},
			want: []string{`want "integer"`},
			once: []string{"tool add", "invalid arguments"},
		},
		{
			name: "null arguments are reported as null",
			run: func() error {
				m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `null`}),
					mock.ToolCalls(mock.Call{ID: "c2", Name: "add", Args: `{"a":null,"b":1}`}))
				a := mustAgent(t, "calc", m, helikon.WithTools(sumTool()))
				_, err := helikon.Collect(a.Run(context.Background(), nil, helikon.UserText("q")))
				return err
			},
			want:    []string{`null has type "null"`},
			notWant: []string{"reflect.Value"},
		},
		{
			name: "CollectTyped on an agent without an output type says so",
			run: func() error {
				a := answerer(t, "plain", "Just text.")
				_, err := helikon.CollectTyped[sumArgs](a.Run(context.Background(), nil, helikon.UserText("q")))
				return err
			},
			want: []string{"no output type", "WithOutput[helikon_test.sumArgs]()"},
		},
		{
			name: "CollectTyped into the wrong type says the decode error once",
			run: func() error {
				type other struct{ A string }
				a := mustAgent(t, "typed", mock.Scripted(mock.Text(`{"a":1,"b":2}`)), helikon.WithOutput[sumArgs]())
				_, err := helikon.CollectTyped[[]other](a.Run(context.Background(), nil, helikon.UserText("q")))
				return err
			},
			want: []string{"does not decode as []helikon_test.other"},
			once: []string{"cannot unmarshal"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, s := range c.want {
				if !strings.Contains(msg, s) {
					t.Errorf("%q\nlacks %q", msg, s)
				}
			}
			for _, s := range c.notWant {
				if strings.Contains(msg, s) {
					t.Errorf("%q\ncontains %q", msg, s)
				}
			}
			for _, s := range c.once {
				if n := strings.Count(msg, s); n != 1 {
					t.Errorf("%q\nsays %q %d times", msg, s, n)
				}
			}
		})
	}
}
