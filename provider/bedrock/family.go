package bedrock

import "strings"

// Family is the model family a Bedrock model id belongs to; it decides how
// structured output is asked for.
type Family string

// The families the adapter tells apart.
const (
	FamilyAnthropic Family = "anthropic"
	FamilyNova      Family = "nova"
	FamilyMistral   Family = "mistral"
	FamilyTitan     Family = "titan"
	FamilyLlama     Family = "llama"
	FamilyCohere    Family = "cohere"
	FamilyUnknown   Family = "unknown"
)

// regionPrefixes are the cross-region inference profile prefixes a model id
// may carry ("us.anthropic.claude-…", "global.anthropic.claude-…").
var regionPrefixes = []string{"us.", "eu.", "ap.", "apac.", "us-gov.", "jp.", "au.", "ca.", "global."}

// DetectFamily reads the family from a model id or inference profile id,
// after any cross-region prefix; an ARN is read by its last path segment.
func DetectFamily(modelID string) Family {
	id := strings.ToLower(modelID)
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	for _, p := range regionPrefixes {
		if strings.HasPrefix(id, p) {
			id = id[len(p):]
			break
		}
	}
	switch {
	case strings.HasPrefix(id, "anthropic."):
		return FamilyAnthropic
	case strings.HasPrefix(id, "amazon.nova"):
		return FamilyNova
	case strings.HasPrefix(id, "amazon.titan"):
		return FamilyTitan
	case strings.HasPrefix(id, "mistral."):
		return FamilyMistral
	case strings.HasPrefix(id, "meta.llama"):
		return FamilyLlama
	case strings.HasPrefix(id, "cohere."):
		return FamilyCohere
	}
	return FamilyUnknown
}

// forcedToolOutput reports whether the family follows a forced tool choice,
// which is how the adapter gets structured output from it.
func (f Family) forcedToolOutput() bool {
	return f == FamilyAnthropic || f == FamilyNova || f == FamilyMistral
}
