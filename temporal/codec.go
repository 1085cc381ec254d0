package temporal

import (
	"go.temporal.io/sdk/converter"
)

// CompressingDataConverter returns Temporal's default data converter with
// a zlib payload codec. Codecs of your own (encryption, say) apply after
// compression: they wrap the compressed payload. Set it as client.Options.DataConverter on every client
// and worker of a task queue. A run's history holds the conversation many
// times over (every model turn's request carries it), and JSON conversation
// compresses well: see docs/durable.md for the measured budget. A payload
// that would not shrink is stored as it is.
func CompressingDataConverter(codecs ...converter.PayloadCodec) converter.DataConverter {
	// The codec data converter encodes with its last codec first.
	all := append(codecs[:len(codecs):len(codecs)], converter.NewZlibCodec(converter.ZlibCodecOptions{}))
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), all...)
}
