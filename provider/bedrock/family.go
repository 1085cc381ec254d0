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
	id := baseID(modelID)
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

// baseID is the lower-case model id without ARN path or cross-region
// prefix.
func baseID(modelID string) string {
	id := strings.ToLower(modelID)
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	for _, p := range regionPrefixes {
		if strings.HasPrefix(id, p) {
			return id[len(p):]
		}
	}
	return id
}

// nativeOutputModels are the models Bedrock's structured-output guide lists
// with native JSON-schema output on Converse (outputConfig.textFormat)
// whose ids the adapter can tell apart: Claude Haiku 4.5, Sonnet 4.5 and
// 4.6, Opus 4.5 and 4.6. The open-weight models the guide lists by vendor
// ("select Qwen, DeepSeek, …") are not named precisely enough to guess
// from an id; [WithNativeStructuredOutput] turns it on for them.
var nativeOutputModels = []string{"anthropic.claude-haiku-4-5", "anthropic.claude-sonnet-4-5",
	"anthropic.claude-sonnet-4-6", "anthropic.claude-opus-4-5", "anthropic.claude-opus-4-6"}

// nativeOutput reports whether the model is documented to take native
// JSON-schema output, which the adapter then prefers to a forced tool.
func nativeOutput(modelID string) bool {
	id := baseID(modelID)
	for _, p := range nativeOutputModels {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// forcedToolOutput reports whether the family follows a forced tool choice,
// which is how the adapter gets structured output from it.
func (f Family) forcedToolOutput() bool {
	return f == FamilyAnthropic || f == FamilyNova || f == FamilyMistral
}
