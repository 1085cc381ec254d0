package main

import (
	"strings"
	"testing"
)

func TestSelectModel_FromHELIKON_PROVIDER(t *testing.T) {
	for _, v := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "HELIKON_MODEL"} {
		t.Setenv(v, "")
	}
	tests := []struct {
		provider, region, wantProvider, errMentions string
	}{
		{provider: "", wantProvider: "mock"},
		{provider: "bedrock", region: "eu-west-1", wantProvider: "bedrock"},
		{provider: "bedrock", errMentions: "AWS_REGION"},
		{provider: "watsonx", errMentions: "unknown provider"},
	}
	for _, tt := range tests {
		t.Run(tt.provider+"/"+tt.region, func(t *testing.T) {
			t.Setenv("HELIKON_PROVIDER", tt.provider)
			t.Setenv("AWS_REGION", tt.region)
			m, err := selectModel(echoModel{})
			if tt.errMentions != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errMentions) {
					t.Fatalf("err = %v, want one naming %s", err, tt.errMentions)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p, ok := m.(interface{ Provider() string }); !ok || p.Provider() != tt.wantProvider {
				t.Errorf("model %T, want provider %s", m, tt.wantProvider)
			}
		})
	}
}
