module edge

go 1.26.0

require (
	github.com/klauspost/compress v1.20.4
	github.com/valyala/fasthttp v1.78.0
	github.com/yookoala/gofast v0.8.0
	go.uber.org/zap v1.28.0
	golang.org/x/net v0.62.0
)

require (
	github.com/molecule-man/go-brrr v1.3.1 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/text v0.44.0 // indirect
	golang.org/x/tools/godoc v0.1.0-deprecated // indirect
)
