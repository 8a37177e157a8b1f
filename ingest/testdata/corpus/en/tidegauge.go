// Package tidegauge reads water levels from a harbour tide gauge and
// turns them into smoothed readings for the port authority.
package tidegauge

import (
	"errors"
	"time"
)

// Reading is one water level sample in centimetres above chart datum.
type Reading struct {
	At    time.Time
	Level float64
}

// ErrStale is returned when the newest sample is too old to publish.
var ErrStale = errors.New("tidegauge: stale reading")

// MaxAge is how old a sample may be before it is considered stale.
// Samples arrive every six minutes; three missed samples mean the float
// is stuck or the radio link is down.
const MaxAge = 18 * time.Minute

// Smooth averages the last five samples to remove the chop caused by
// passing ships. It drops samples that jump more than 40 cm from their
// neighbours, which happens when a gull lands on the float.
func Smooth(samples []Reading, now time.Time) (float64, error) {
	if len(samples) == 0 || now.Sub(samples[len(samples)-1].At) > MaxAge {
		return 0, ErrStale
	}
	start := max(0, len(samples)-5)
	var sum float64
	var n int
	for i := start; i < len(samples); i++ {
		if i > 0 && abs(samples[i].Level-samples[i-1].Level) > 40 {
			continue
		}
		sum += samples[i].Level
		n++
	}
	if n == 0 {
		return samples[len(samples)-1].Level, nil
	}
	return sum / float64(n), nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
