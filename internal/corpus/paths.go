package corpus

import (
	"context"
	"fmt"
)

// Paths fills in the defaults of a corpus folder and its index file: the
// Go distribution's documentation for an empty dir (DefaultCorpus, which
// writes it into the user's cache directory the first time), a file in
// the user's cache directory for an empty indexPath (DefaultPath).
func Paths(ctx context.Context, dir, indexPath string) (string, string, error) {
	if dir == "" {
		d, err := DefaultCorpus(ctx)
		if err != nil {
			return "", "", fmt.Errorf("no corpus configured and %w", err)
		}
		dir = d
	}
	if indexPath == "" {
		p, err := DefaultPath(dir)
		if err != nil {
			return "", "", err
		}
		indexPath = p
	}
	return dir, indexPath, nil
}
