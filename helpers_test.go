package deepresearch_test

import (
	"fmt"
	"os"
	"strconv"
)

func fmtSscanf(s, format string, a ...any) (int, error) { return fmt.Sscanf(s, format, a...) }

func itoa(n int) string { return strconv.Itoa(n) }

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}
