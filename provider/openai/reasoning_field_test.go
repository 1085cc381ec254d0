package openai

import "testing"

func TestConfig_ReasoningFieldDefaultsPerServer(t *testing.T) {
	for _, tc := range []struct {
		name, base, want string
		opts             []Option
		wantErr          bool
	}{
		{"DeepSeek's API defaults to reasoning_content", "https://api.deepseek.com", ReasoningContentField, nil, false},
		{"DeepSeek's versioned root too", "https://api.deepseek.com/v1", ReasoningContentField, nil, false},
		{"OpenAI sends none", DefaultBaseURL, "", nil, false},
		{"a local server sends none", "http://localhost:11434/v1", "", nil, false},
		{"an explicit empty field turns it off", "https://api.deepseek.com", "", []Option{WithReasoningInHistory("")}, false},
		{"an explicit field wins", "http://localhost:8000/v1", ReasoningField, []Option{WithReasoningInHistory(ReasoningField)}, false},
		{"a look-alike host is not DeepSeek", "https://api.deepseek.com.example.org", "", nil, false},
		{"an unknown field is refused", DefaultBaseURL, "", []Option{WithReasoningInHistory("thoughts")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := newConfig("m", append([]Option{WithBaseURL(tc.base), WithAPIKey("k")}, tc.opts...))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err == nil && c.reasoningField != tc.want {
				t.Errorf("reasoning field = %q, want %q", c.reasoningField, tc.want)
			}
		})
	}
}
