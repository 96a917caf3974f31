package main

type Server struct {
	addr string
}

type (
	Handler interface {
		Serve(w Writer) error
		Embedded
	}
	ID = int
	List[T any] []T
)

const Max = 10

const (
	A = iota
	B
)

func (s *Server) Start() error {
	f := func() {}
	return nil
}

func (l List[T]) Len() int { return len(l) }

func main() {
	type local struct{}
}
