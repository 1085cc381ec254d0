package bedrock

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// The AWS configuration names Bedrock Runtime's endpoint and the way to
// call it in more places than aws.Config's fields: its sources
// (aws.Config.ConfigSources: config.LoadOptions, the environment, the
// shared config profile) hold the service's own endpoint, the FIPS and
// dual-stack switches, and the environment a Bedrock API key. The SDK's
// bedrockruntime client read them; the adapter reads them the same way
// through the sources' methods, so that a configuration naming a VPC
// endpoint, FIPS or an API key never has its requests sent elsewhere, or
// signed as another principal.

// sdkID is Bedrock Runtime's service id in the AWS configuration
// (AWS_ENDPOINT_URL_BEDROCK_RUNTIME, a profile's "bedrock_runtime" services
// entry).
const sdkID = "Bedrock Runtime"

// bearerTokenEnv holds a Bedrock API key; when set, the SDK's client sent
// it as a bearer token instead of signing with the credential chain.
const bearerTokenEnv = "AWS_BEARER_TOKEN_BEDROCK"

type serviceEndpointSource interface {
	GetServiceBaseEndpoint(ctx context.Context, sdkID string) (string, bool, error)
}

type ignoreEndpointsSource interface {
	GetIgnoreConfiguredEndpoints(ctx context.Context) (bool, bool, error)
}

type fipsSource interface {
	GetUseFIPSEndpoint(ctx context.Context) (aws.FIPSEndpointState, bool, error)
}

type dualStackSource interface {
	GetUseDualStackEndpoint(ctx context.Context) (aws.DualStackEndpointState, bool, error)
}

// configuredEndpoint returns the endpoint cfg names for Bedrock Runtime, ""
// for none: the service's own (AWS_ENDPOINT_URL_BEDROCK_RUNTIME, the
// profile's services section) over cfg.BaseEndpoint (AWS_ENDPOINT_URL), in
// the order the SDK's client resolved them.
func configuredEndpoint(cfg aws.Config) string {
	var base string
	if cfg.BaseEndpoint != nil {
		base = *cfg.BaseEndpoint
	}
	_, global := os.LookupEnv("AWS_ENDPOINT_URL")
	_, own := os.LookupEnv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME")
	if global && !own {
		return base
	}
	ctx := context.Background()
	for _, src := range cfg.ConfigSources {
		if p, ok := src.(ignoreEndpointsSource); ok {
			if ignore, found, _ := p.GetIgnoreConfiguredEndpoints(ctx); found {
				if ignore {
					return base
				}
				break
			}
		}
	}
	for _, src := range cfg.ConfigSources {
		if p, ok := src.(serviceEndpointSource); ok {
			v, found, err := p.GetServiceBaseEndpoint(ctx, sdkID)
			if err != nil {
				break
			}
			if found {
				return v
			}
		}
	}
	return base
}

// endpointVariant returns an error when cfg asks for an endpoint variant
// the adapter does not derive (FIPS, dual-stack): the request would go to
// the standard endpoint instead, so [New] refuses until one is named.
func endpointVariant(cfg aws.Config) error {
	ctx := context.Background()
	for _, src := range cfg.ConfigSources {
		if p, ok := src.(fipsSource); ok {
			v, found, err := p.GetUseFIPSEndpoint(ctx)
			if err != nil {
				return fmt.Errorf("bedrock: reading the FIPS endpoint setting: %w", err)
			}
			if found {
				if v == aws.FIPSEndpointStateEnabled {
					return fmt.Errorf("bedrock: the AWS configuration asks for the FIPS endpoint (AWS_USE_FIPS_ENDPOINT, use_fips_endpoint), which the adapter does not derive: name it with WithBaseEndpoint or AWS_ENDPOINT_URL_BEDROCK_RUNTIME (https://bedrock-runtime-fips.%s.amazonaws.com)", cfg.Region)
				}
				break
			}
		}
	}
	for _, src := range cfg.ConfigSources {
		if p, ok := src.(dualStackSource); ok {
			v, found, err := p.GetUseDualStackEndpoint(ctx)
			if err != nil {
				return fmt.Errorf("bedrock: reading the dual-stack endpoint setting: %w", err)
			}
			if found {
				if v == aws.DualStackEndpointStateEnabled {
					return fmt.Errorf("bedrock: the AWS configuration asks for the dual-stack endpoint (AWS_USE_DUALSTACK_ENDPOINT, use_dualstack_endpoint), which the adapter does not derive: name it with WithBaseEndpoint or AWS_ENDPOINT_URL_BEDROCK_RUNTIME")
				}
				break
			}
		}
	}
	return nil
}
