package postgres

// SetConvertLimit sets the largest table Migrate converts by itself, for
// one test, and returns a func that restores the limit.
func SetConvertLimit(n int64) (restore func()) {
	old := convertLimit
	convertLimit = n
	return func() { convertLimit = old }
}

// PayloadColumnSQL reads the type of session_events.payload.
const PayloadColumnSQL = payloadColumnSQL

// SetConvertLockWait sets how long Migrate's conversion waits for the
// table, for one test, and returns a func that restores it.
func SetConvertLockWait(interval string) (restore func()) {
	old := convertLockWait
	convertLockWait = interval
	return func() { convertLockWait = old }
}

// LeftJSONBPools counts the pools Migrate remembers leaving jsonb.
func LeftJSONBPools() int {
	n := 0
	leftJSONB.Range(func(any, any) bool { n++; return true })
	return n
}
