package deepresearch_test

import (
	"fmt"
	"strconv"
)

func fmtSscanf(s, format string, a ...any) (int, error) { return fmt.Sscanf(s, format, a...) }

func itoa(n int) string { return strconv.Itoa(n) }
