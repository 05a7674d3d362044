package actor

import (
	"log/slog"
	"os"
	"time"

	"github.com/lmittmann/tint"
	"go.opentelemetry.io/otel/metric"
)

type Config struct {
	DeadLetterThrottleInterval  time.Duration      // throttle deadletter logging after this interval
	DeadLetterThrottleCount     int32              // throttle deadletter logging after this count
	DeadLetterRequestLogging    bool               // do not log dead-letters with sender
	DeveloperSupervisionLogging bool               // console log and promote supervision logs to Warning level
	DiagnosticsSerializer       func(Actor) string // extract diagnostics from actor and return as string
	MetricsProvider             metric.MeterProvider
	LoggerFactory               func(system *ActorSystem) *slog.Logger
	// ProcessTableBuckets is how many concurrent maps the process table
	// is split into (WithProcessTableBuckets).
	ProcessTableBuckets int
}

func defaultConfig() *Config {
	return &Config{
		MetricsProvider:             nil,
		ProcessTableBuckets:         1024,
		DeadLetterThrottleInterval:  1 * time.Second,
		DeadLetterThrottleCount:     3,
		DeadLetterRequestLogging:    true,
		DeveloperSupervisionLogging: false,
		DiagnosticsSerializer: func(actor Actor) string {
			return ""
		},
		LoggerFactory: func(system *ActorSystem) *slog.Logger {
			w := os.Stderr

			// create a new logger
			return slog.New(tint.NewHandler(w, &tint.Options{
				Level:      slog.LevelInfo,
				TimeFormat: time.Kitchen,
			})).With("lib", "Proto.Actor").
				With("system", system.ID)
		},
	}
}

func NewConfig() *Config {
	return defaultConfig()
}
