package slug

import "testing"

func TestMake_CollapsesEveryRunOfOtherCharacters(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"investing specialist", "investing_specialist"},
		{"  Billing -- Agent 2 ", "billing_agent_2"},
		{"Ünïcode", "n_code"},
		{"!!!", "_"},
		{"", ""},
	} {
		if got := Make(tt.in); got != tt.want {
			t.Errorf("Make(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
