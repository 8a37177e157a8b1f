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
	} {
		if got := e.codeQuery(c.in); got != c.want {
			t.Errorf("codeQuery(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
