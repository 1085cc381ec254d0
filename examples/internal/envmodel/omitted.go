package envmodel

// OmittedError reports that HELIKON_PROVIDER names a provider the binary
// was built without (its no<provider> build tag).
type OmittedError struct {
	// Provider is the HELIKON_PROVIDER value, e.g. "bedrock".
	Provider string
}

// Tag returns the build tag that left the provider out, e.g. "nobedrock".
func (e *OmittedError) Tag() string { return "no" + e.Provider }

// Error names the tag to drop.
func (e *OmittedError) Error() string {
	return e.Provider + " was left out of this build (-tags " + e.Tag() + "); rebuild without the tag to use it"
}
