// Runs the Go client of docs/elector.md as it stands there (copied beside
// this file by the test as elector.go) across a resign: it must lead, stop
// within its promise, sleep on the events, and lead again in the next term.
//   ELECTOR_BASE=… ELECTOR_ADMIN=… ELECTOR_TOKEN=… go test
package elector

import (
	"net/http"
	"os"
	"testing"
	"time"
)

type done struct{}

func TestLead(t *testing.T) {
	base, admin, token := os.Getenv("ELECTOR_BASE"), os.Getenv("ELECTOR_ADMIN"), os.Getenv("ELECTOR_TOKEN")
	terms := map[uint64]int{}
	steps, late := 0, 0
	defer func() {
		if r := recover(); r != (done{}) {
			panic(r)
		}
		if late > 0 || len(terms) != 2 {
			t.Fatalf("%d steps past their promise; terms %v", late, terms)
		}
		t.Logf("%d steps in terms %v, none past its promise", steps, terms)
	}()
	err := Lead(base, "sweeper", func(term uint64, until time.Time) {
		time.Sleep(10 * time.Millisecond)
		if time.Now().After(until) {
			late++
		}
		steps++
		terms[term]++
		if steps == 10 {
			req, _ := http.NewRequest("POST", admin+"/leases/sweeper/resign", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
			}
		}
		if len(terms) == 2 && terms[term] == 5 {
			panic(done{})
		}
	})
	t.Fatalf("Lead returned: %v", err)
}
