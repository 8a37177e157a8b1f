package situate

import "testing"

// TestCodeQuery: a query in a CJK script reaches the code arm only with the
// identifiers it names; any other query reaches it as typed.
func TestCodeQuery(t *testing.T) {
	var e Engine
	for _, c := range []struct{ in, want string }{
		{"how does getUserName work", "how does getUserName work"},
		{"Какая команда НФЛ победила?", "Какая команда НФЛ победила?"},
		{"哪支 NFL 球队赢得了超级碗 50？", ""},
		{"Debian 的稳定版是什么？", ""},
		{"getUserName 函数在哪里定义？", "getUserName"},
		{"如何调用 os.Open 和 parse_json_v2、utf8 包？", "os.Open parse_json_v2 utf8"},
		{"「設定」を読む readConfig の使い方", "readConfig"},
		// Wholly in CJK script (digits are no words): the whole query.
		{"神秘博士的孙女叫什么名字？", "神秘博士的孙女叫什么名字？"},
		{"美国佛蒙特州总共拥有多少个县？2004年", "美国佛蒙特州总共拥有多少个县？2004年"},
		{"ＮＦＬ 球队", ""},
	} {
		if got := e.codeQuery(c.in); got != c.want {
			t.Errorf("codeQuery(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestCodeQueryWeight: a query wholly in CJK script keeps the code arm at
// cjkCodeArmShare of its weight (issue 29); any other query at its whole
// weight.
func TestCodeQueryWeight(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
	}{
		{"神秘博士的孙女叫什么名字？", cjkCodeArmShare},
		{"基氏软汉鱼分布在哪个地区？2004年", cjkCodeArmShare},
		{"Debian 的稳定版是什么？", 1},
		{"how does getUserName work", 1},
		{"Какая команда НФЛ победила?", 1},
	} {
		if got := codeQueryWeight(c.in); got != c.want {
			t.Errorf("codeQueryWeight(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
