package redis_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	rsession "github.com/paigasus/helikon/session/redis"
)

// This example needs a Redis server, so it is compiled but not run.
func Example() {
	ctx := context.Background()
	// TLS, credentials and retries are configured on the client.
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()

	sess, err := rsession.New(client, "user-42")
	if err != nil {
		log.Fatal(err)
	}
	if err := sess.Append(ctx, session.UserMessage(helikon.TextPart{Text: "How am I doing on dining?"})); err != nil {
		log.Fatal(err)
	}
	history, err := sess.Snapshot(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(history), "messages")
}

// A retention bound keeps each session to its newest events.
// New does no I/O, so this example runs without a server.
func ExampleWithMaxLen() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	sess, err := rsession.New(client, "user-42", rsession.WithMaxLen(10_000))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sess.EventsKey())
	// Output: helikon:session:{user-42}:events
}

// During a rolling upgrade from a version that stored sessions as streams
// only, new sessions are made streams too, with the seq field those
// versions read; existing sessions keep their layout either way.
func ExampleWithStreamLayout() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	sess, err := rsession.New(client, "user-42", rsession.WithStreamLayout(), rsession.WithSeqField())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sess.SessionID())
	// Output: user-42
}

// Once no process of a version before lists is left, a session stored as a
// stream can be made a list, which reads faster. It needs a server, so it
// is compiled but not run.
func ExampleSession_ConvertToList() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	sess, err := rsession.New(client, "user-42")
	if err != nil {
		log.Fatal(err)
	}
	if err := sess.ConvertToList(ctx); errors.Is(err, rsession.ErrTooLongToConvert) {
		log.Print("user-42 stays a stream: ", err)
	} else if err != nil {
		log.Fatal(err)
	}
}
