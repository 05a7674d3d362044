package cluster

import (
	"context"
	"log/slog"
)

// quieter passes on only records at min or above: protoactor logs every
// topology poll and gossip round at info, which would drown the member's
// own lines in the same handler.
type quieter struct {
	slog.Handler
	min slog.Level
}

func (q quieter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= q.min && q.Handler.Enabled(ctx, l)
}

func (q quieter) WithAttrs(as []slog.Attr) slog.Handler {
	return quieter{q.Handler.WithAttrs(as), q.min}
}

func (q quieter) WithGroup(name string) slog.Handler {
	return quieter{q.Handler.WithGroup(name), q.min}
}

// libraryLogger is the logger protoactor gets: the member's, at warn and
// above, unless Config.LibraryLogLevel lowers it.
func libraryLogger(cfg *Config, log *slog.Logger) *slog.Logger {
	min := slog.LevelWarn
	if cfg.LibraryLogLevel != nil {
		min = *cfg.LibraryLogLevel
	}
	return slog.New(quieter{log.Handler(), min}).With("lib", "protoactor")
}
