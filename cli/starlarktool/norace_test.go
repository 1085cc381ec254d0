//go:build !race

package starlarktool_test

const raceBuild = false
