package bedrock

import "encoding/json"

// The body of a ConverseStream request (POST
// /model/{modelId}/converse-stream, application/json), in the member names
// of the Bedrock Runtime API reference and its service model
// (testdata/bedrock_runtime_converse_stream_shapes.json has the shapes the
// tests check every body against). Only the members the adapter sends are
// declared; a union (ContentBlock, ToolChoice, …) is a struct of which
// exactly one pointer is set, which omitempty leaves as the one member on
// the wire. Blobs are []byte, which encoding/json writes as standard
// base64, as the protocol wants; documents (tool input, input schemas,
// additional model fields) are JSON as it is.

type converseRequest struct {
	Messages                     []message        `json:"messages,omitempty"`
	System                       []systemBlock    `json:"system,omitempty"`
	InferenceConfig              *inferenceConfig `json:"inferenceConfig,omitempty"`
	ToolConfig                   *toolConfig      `json:"toolConfig,omitempty"`
	AdditionalModelRequestFields json.RawMessage  `json:"additionalModelRequestFields,omitempty"`
	OutputConfig                 *outputConfig    `json:"outputConfig,omitempty"`
}

type inferenceConfig struct {
	MaxTokens   *int32   `json:"maxTokens,omitempty"`
	Temperature *float32 `json:"temperature,omitempty"`
	TopP        *float32 `json:"topP,omitempty"`
}

// systemBlock is the SystemContentBlock union: text, or a cache point
// after the text before it.
type systemBlock struct {
	Text       string      `json:"text,omitempty"`
	CachePoint *cachePoint `json:"cachePoint,omitempty"`
}

// cachePoint is a CachePointBlock: the prompt up to it is cached.
type cachePoint struct {
	Type string `json:"type"` // "default", the one type
}

// defaultCachePoint is the only cache point Converse defines.
var defaultCachePoint = &cachePoint{Type: "default"}

// Conversation roles.
const (
	roleUser      = "user"
	roleAssistant = "assistant"
)

type message struct {
	Role    string         `json:"role"`
	Content []contentBlock `json:"content"`
}

type contentBlock struct {
	Text             *string           `json:"text,omitempty"`
	Image            *imageBlock       `json:"image,omitempty"`
	ToolUse          *toolUseBlock     `json:"toolUse,omitempty"`
	ToolResult       *toolResultBlock  `json:"toolResult,omitempty"`
	ReasoningContent *reasoningContent `json:"reasoningContent,omitempty"`
	CachePoint       *cachePoint       `json:"cachePoint,omitempty"`
}

type imageBlock struct {
	Format string      `json:"format"` // png, jpeg, gif, webp
	Source imageSource `json:"source"`
}

type imageSource struct {
	Bytes      []byte      `json:"bytes,omitempty"`
	S3Location *s3Location `json:"s3Location,omitempty"`
}

type s3Location struct {
	URI string `json:"uri"`
}

type toolUseBlock struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	ToolUseID string              `json:"toolUseId"`
	Content   []toolResultContent `json:"content,omitempty"`
	Status    string              `json:"status,omitempty"` // "error" for a failed call
}

type toolResultContent struct {
	Text  *string     `json:"text,omitempty"`
	Image *imageBlock `json:"image,omitempty"`
}

type reasoningContent struct {
	ReasoningText   *reasoningText `json:"reasoningText,omitempty"`
	RedactedContent []byte         `json:"redactedContent,omitempty"`
}

type reasoningText struct {
	Text      string `json:"text"`
	Signature string `json:"signature,omitempty"`
}

type toolConfig struct {
	Tools      []tool      `json:"tools"`
	ToolChoice *toolChoice `json:"toolChoice,omitempty"`
}

// tool is the Tool union: a tool's spec, or a cache point after the
// tools before it.
type tool struct {
	ToolSpec   *toolSpecification `json:"toolSpec,omitempty"`
	CachePoint *cachePoint        `json:"cachePoint,omitempty"`
}

type toolSpecification struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema toolInputSchema `json:"inputSchema"`
}

type toolInputSchema struct {
	JSON json.RawMessage `json:"json"`
}

// toolChoice is the ToolChoice union: any (some tool) or tool (this one).
type toolChoice struct {
	Any  *struct{}     `json:"any,omitempty"`
	Tool *specificTool `json:"tool,omitempty"`
}

type specificTool struct {
	Name string `json:"name"`
}

type outputConfig struct {
	TextFormat outputFormat `json:"textFormat"`
}

type outputFormat struct {
	Type      string          `json:"type"` // json_schema
	Structure outputStructure `json:"structure"`
}

type outputStructure struct {
	JSONSchema jsonSchemaDefinition `json:"jsonSchema"`
}

type jsonSchemaDefinition struct {
	Schema string `json:"schema"` // the schema as JSON text
	Name   string `json:"name,omitempty"`
}
