package main

// The fixture corpus: each document is about one named entity (its title).
// Its later sections never repeat the name; they say "the tower", "the
// castle", "它"... A query names the entity and asks for a fact that only
// such a later section holds, so plain chunk retrieval cannot connect the
// two and contextual retrieval can.

type section struct {
	Heading string
	Paras   []string
}

type query struct {
	Query string `json:"query"`
	// Answer is a phrase of the answer paragraph, as it appears in the
	// parsed document text (after whitespace is collapsed).
	Answer string `json:"answer"`
}

type spec struct {
	Path     string // under testdata/corpus
	Lang     string
	Title    string
	Entity   string // the name that later sections never repeat
	Intro    string
	Sections []section
	Queries  []query
}

var corpus = []spec{
	{
		Path: "en/brennick-lighthouse.md", Lang: "en",
		Title: "Brennick Lighthouse", Entity: "Brennick",
		Intro: "Brennick Lighthouse stands on a basalt shelf at the northern tip of the Orrin peninsula. It guided grain ships into the estuary for more than a century and is now a listed monument.",
		Sections: []section{
			{"Construction", []string{
				"Work on the tower began in the spring of 1869. Masons cut the granite blocks on the mainland and floated them across the channel on flat barges, because the shelf offered no stone of its own.",
				"The tower was finished in 1873 and rises 38 metres above the high-water mark. Its walls are nearly two metres thick at the base and taper to sixty centimetres below the lantern gallery.",
			}},
			{"The light", []string{
				"A first-order Fresnel lens was installed in the lantern room. It was turned by a clockwork weight that the keeper had to wind every four hours during the night.",
				"In 1931 the paraffin burner was replaced by an electric lamp fed from a diesel generator, which raised the range of the beam from nineteen to twenty-six nautical miles.",
			}},
			{"Keepers", []string{
				"Three keepers lived on the rock in rotation. Their logbooks record the great storm of 1894, when waves broke over the gallery and cracked two panes of the lantern.",
				"The last keeper, Agnes Morrow, left the station in 1987 when the light was automated; she had served there for twenty-two years.",
			}},
		},
		Queries: []query{
			{"When was Brennick Lighthouse completed?", "The tower was finished in 1873"},
			{"Who was the last keeper of Brennick Lighthouse?", "The last keeper, Agnes Morrow"},
		},
	},
	{
		Path: "ru/usadba-vetlugina.md", Lang: "ru",
		Title: "Усадьба Ветлугиных", Entity: "Ветлугин",
		Intro: "Усадьба Ветлугиных расположена на высоком берегу реки Сежи, в сорока километрах от уездного города. Её построил в конце XVIII века отставной капитан Пётр Ветлугин.",
		Sections: []section{
			{"Главный дом", []string{
				"Деревянный дом на каменном цоколе поставлен в 1794 году. Фасад украшает портик из шести колонн, а в мезонине находилась библиотека, насчитывавшая около четырёх тысяч томов.",
				"После пожара 1856 года второй этаж восстановили уже в кирпиче, сохранив прежнюю планировку комнат.",
			}},
			{"Парк и оранжерея", []string{
				"Липовый парк спускается террасами к реке. Оранжерею выстроили в 1823 году; в ней выращивали персики и ананасы, которые отправляли к столу губернатора.",
				"Пруд с островом выкопали крепостные крестьяне за два лета, а на острове поставили беседку-ротонду.",
			}},
			{"Советские годы", []string{
				"В 1921 году в доме открыли школу-коммуну, а с 1948 года здесь работал санаторий для детей, больных туберкулёзом.",
				"Музей открылся в 1992 году; в его собрании хранится дневник хозяйки за 1812 год.",
			}},
		},
		Queries: []query{
			{"Что выращивали в оранжерее усадьбы Ветлугиных?", "выращивали персики и ананасы"},
			{"Когда открылся музей в усадьбе Ветлугиных?", "Музей открылся в 1992 году"},
		},
	},
	{
		Path: "de/talsperre-wendelbach.html", Lang: "de",
		Title: "Talsperre Wendelbach", Entity: "Wendelbach",
		Intro: "Die Talsperre Wendelbach staut den gleichnamigen Bach im oberen Waldviertel zu einem fast vier Kilometer langen See. Sie versorgt heute rund 180.000 Menschen mit Trinkwasser.",
		Sections: []section{
			{"Bau", []string{
				"Die Bauarbeiten begannen 1912 und wurden während des Krieges unterbrochen. Die Gewichtsstaumauer aus Bruchsteinmauerwerk ist 42 Meter hoch und an der Krone 310 Meter lang.",
				"Für den Bau wurde eine eigene Feldbahn angelegt, die den Zement vom Bahnhof Kaltenbrunn heranschaffte.",
			}},
			{"Technik", []string{
				"Das Wasserkraftwerk am Fuß der Mauer leistet 3,2 Megawatt. Zwei Francis-Turbinen aus dem Jahr 1925 laufen bis heute.",
				"Bei Hochwasser fließt das Wasser über einen Überlauf mit neun Feldern ab; er wurde 1998 nach dem Jahrhunderthochwasser verbreitert.",
			}},
		},
		Queries: []query{
			{"Wie viel leistet das Kraftwerk der Talsperre Wendelbach?", "leistet 3,2 Megawatt"},
			{"Wie hoch ist die Mauer der Talsperre Wendelbach?", "ist 42 Meter hoch"},
		},
	},
	{
		Path: "zh/qinglan-qiao.html", Lang: "zh",
		Title: "青岚古桥", Entity: "青岚",
		Intro: "青岚古桥位于浙江西部的青岚溪上，是一座五孔石拱桥，全长八十六米，为当地现存最长的古桥。",
		Sections: []section{
			{"历史", []string{
				"此桥始建于南宋淳熙年间，原为木梁桥，屡毁于洪水。明代万历二十三年改建为石拱桥，由乡绅周氏捐资，历时六年方才完工。",
				"清代咸丰年间，桥身在战火中受损，同治年间重修时在桥头增建了一座茶亭，供往来商旅歇脚。",
			}},
			{"结构", []string{
				"桥面以青石板铺成，两侧设有石栏，栏板上刻有莲花与鲤鱼图案。中间一孔跨度最大，约十四米。",
				"桥墩呈船形，迎水一面砌成尖角，用以分水减轻冲击，这一做法使它历经四百年洪水而不倒。",
			}},
		},
		Queries: []query{
			{"青岚古桥的桥墩是什么形状？", "桥墩呈船形"},
			{"青岚古桥是谁捐资改建的？", "由乡绅周氏捐资"},
		},
	},
	{
		Path: "de/burg-falkenried.pdf", Lang: "de",
		Title: "Burg Falkenried", Entity: "Falkenried",
		Intro: "Burg Falkenried ist eine Höhenburg über dem Tal der Lauter in Schwaben. Sie wurde um 1180 von den Grafen von Helfenstein als Sitz ihrer Vögte errichtet.",
		Sections: []section{
			{"Baugeschichte", []string{
				"Der quadratische Bergfried aus Buckelquadern ist 27 Meter hoch. Sein Eingang liegt in elf Metern Höhe und war nur über eine Leiter zu erreichen.",
				"Im 15. Jahrhundert wurde die Anlage um eine Zwingermauer mit drei Schalentürmen erweitert, die den Zugang von Süden sicherte.",
			}},
			{"Niedergang", []string{
				"Im Bauernkrieg 1525 wurde die Anlage gestürmt und in Brand gesetzt. Danach diente sie nur noch als Steinbruch für die Häuser des Dorfes.",
				"Seit 1978 kümmert sich ein Förderverein um die Ruine; er hat den Brunnen freigelegt, der 64 Meter tief in den Fels reicht.",
			}},
		},
		Queries: []query{
			{"Wie tief ist der Brunnen der Burg Falkenried?", "64 Meter tief in den Fels"},
			{"Wann wurde Burg Falkenried gestürmt?", "Im Bauernkrieg 1525"},
		},
	},
	{
		Path: "ru/kedrovskaya-observatoriya.pdf", Lang: "ru",
		Title: "Кедровская обсерватория", Entity: "Кедровск",
		Intro: "Кедровская обсерватория находится на вершине горы Шумной в Западных Саянах, на высоте 2140 метров. Её основали в 1957 году для наблюдений за Солнцем.",
		Sections: []section{
			{"Инструменты", []string{
				"Главный телескоп с зеркалом диаметром 1,6 метра установлен в 1974 году. Купол весом девяносто тонн поворачивается двумя электромоторами.",
				"Солнечный коронограф работает только в ясные летние месяцы, когда воздух над хребтом особенно спокоен.",
			}},
			{"Жизнь на горе", []string{
				"Зимой дорогу заносит снегом, и сотрудников доставляют на вершину вездеходом. Запасы топлива и продуктов завозят в сентябре на всю зиму.",
				"В 2009 году здесь открыли новую малую планету, которую назвали в честь первого директора, Ивана Соломатина.",
			}},
		},
		Queries: []query{
			{"Какой диаметр зеркала у телескопа Кедровской обсерватории?", "зеркалом диаметром 1,6 метра"},
			{"Как доставляют сотрудников Кедровской обсерватории зимой?", "доставляют на вершину вездеходом"},
		},
	},
	{
		Path: "zh/yunxi-chayuan.pdf", Lang: "zh",
		Title: "云溪茶园", Entity: "云溪",
		Intro: "云溪茶园坐落在福建武夷山脉东麓，海拔六百至九百米，面积约一百二十公顷，以出产岩茶闻名。",
		Sections: []section{
			{"栽培", []string{
				"园中茶树多为肉桂和水仙两个品种，其中最老的一株水仙树龄已超过一百五十年，至今仍每年采摘。",
				"茶农每年只采春茶一季，采摘时间通常在谷雨前后，以保证茶叶的香气和滋味。",
			}},
			{"制作", []string{
				"鲜叶采下后要经过萎凋、摇青、杀青、揉捻和炭焙等工序。炭焙要反复进行三次，前后历时约两个月。",
				"一九八六年，这里生产的肉桂在全国名茶评比中获得金奖，从此声名远播。",
			}},
		},
		Queries: []query{
			{"云溪茶园最老的茶树有多少年？", "树龄已超过一百五十年"},
			{"云溪茶园的茶叶要炭焙几次？", "炭焙要反复进行三次"},
		},
	},
	{
		Path: "en/marrow-creek-railway.docx", Lang: "en",
		Title: "Marrow Creek Railway", Entity: "Marrow Creek",
		Intro: "The Marrow Creek Railway was a narrow-gauge line that carried copper ore from the hill mines down to the smelter at Port Edda between 1889 and 1952.",
		Sections: []section{
			{"Route", []string{
				"The line was 47 kilometres long and climbed 610 metres through the gorge. Its steepest grade, one in twenty-two, lay on the Saddle Bank above the third tunnel.",
				"Eleven timber trestles crossed the side valleys; the tallest stood 34 metres high and was rebuilt in steel in 1911.",
			}},
			{"Locomotives", []string{
				"Four Shay geared engines worked the upper section, because ordinary rod engines slipped on the wet rails of the gorge.",
				"The last train ran on 30 June 1952, hauled by engine number 7, which is now preserved in the town museum.",
			}},
		},
		Queries: []query{
			{"When did the last train run on the Marrow Creek Railway?", "The last train ran on 30 June 1952"},
			{"What engines worked the upper section of the Marrow Creek Railway?", "Four Shay geared engines"},
		},
	},
	{
		Path: "de/glockengiesserei-hallenbach.docx", Lang: "de",
		Title: "Glockengießerei Hallenbach", Entity: "Hallenbach",
		Intro: "Die Glockengießerei Hallenbach in Oberwiesen ist eine der ältesten noch tätigen Glockengießereien Europas. Die Familie führt den Betrieb seit 1702 in elfter Generation.",
		Sections: []section{
			{"Der Guss", []string{
				"Die Form wird aus Lehm, Pferdemist und Kälberhaaren aufgebaut und wochenlang getrocknet. Die Bronze besteht aus 78 Prozent Kupfer und 22 Prozent Zinn.",
				"Nach dem Guss kühlt eine große Glocke bis zu drei Wochen in der Grube ab, bevor sie ausgegraben und gestimmt wird.",
			}},
			{"Bekannte Werke", []string{
				"Die größte je hier gegossene Glocke wiegt 9,4 Tonnen und hängt seit 1958 im Dom von Sankt Lorenz.",
				"Nach dem Zweiten Weltkrieg ersetzte der Betrieb Hunderte von Glocken, die für die Rüstung eingeschmolzen worden waren.",
			}},
		},
		Queries: []query{
			{"Wie schwer ist die größte Glocke der Glockengießerei Hallenbach?", "wiegt 9,4 Tonnen"},
			{"Woraus besteht die Bronze der Glockengießerei Hallenbach?", "78 Prozent Kupfer und 22 Prozent Zinn"},
		},
	},
}

// Go sources are written verbatim.
var goFiles = []struct {
	Path, Lang, Text string
	Queries          []query
}{
	{
		Path: "en/tidegauge.go", Lang: "en",
		Text: `// Package tidegauge reads water levels from a harbour tide gauge and
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
`,
		Queries: []query{
			{"What does tidegauge.go do when a gull lands on the float?", "drops samples that jump more than 40 cm"},
		},
	},
	{
		Path: "zh/lingpaitong.go", Lang: "zh",
		Text: `// Package lingpaitong 实现令牌桶限流器，用于保护下游的支付接口。
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
`,
		Queries: []query{
			{"lingpaitong.go 桶空时调用方应该返回什么？", "调用方应返回 429 状态码"},
		},
	},
}
