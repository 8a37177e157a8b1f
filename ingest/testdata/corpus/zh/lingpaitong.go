// Package lingpaitong 实现令牌桶限流器，用于保护下游的支付接口。
package lingpaitong

import (
	"sync"
	"time"
)

// 桶 保存令牌数量和上次补充的时间。
type 桶 struct {
	mu     sync.Mutex
	容量     float64
	令牌     float64
	每秒补充   float64
	上次补充时间 time.Time
}

// 新建 返回一个装满令牌的桶。容量决定允许的突发请求数，
// 每秒补充决定长期的平均速率。
func 新建(容量, 每秒补充 float64, now time.Time) *桶 {
	return &桶{容量: 容量, 令牌: 容量, 每秒补充: 每秒补充, 上次补充时间: now}
}

// 取 尝试取出一个令牌。桶空时立即返回 false，调用方应返回 429 状态码，
// 而不是排队等待，以免在高峰期拖垮整个服务。
func (b *桶) 取(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.令牌 = min(b.容量, b.令牌+now.Sub(b.上次补充时间).Seconds()*b.每秒补充)
	b.上次补充时间 = now
	if b.令牌 < 1 {
		return false
	}
	b.令牌--
	return true
}
