//go:build !amd64

package main

import "fmt"

// foreign knows no foreign ABI off amd64.
func foreign(op, arg string) bool {
	if len(op) > 5 && (op[:5] == "i386-" || op[:4] == "x32-") {
		fmt.Println("unsupported")
		return true
	}
	return false
}

func foreignLeave() {}
