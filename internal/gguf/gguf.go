package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Magic opens every GGUF file ("GGUF" little-endian).
const Magic = 0x46554747

// Version is the GGUF version written.
const Version = 3

// DefaultAlignment is the tensor-data alignment when general.alignment is
// absent.
const DefaultAlignment = 32

// ValueType is a metadata value's type as encoded in the file.
type ValueType uint32

// GGUF metadata value types.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// TensorTypeF32 is ggml's GGML_TYPE_F32, the only tensor type written.
const TensorTypeF32 = 0

// maxLen bounds strings and arrays read from a file so that a corrupt
// length cannot allocate gigabytes.
const maxLen = 1 << 26

// Array is an array metadata value: elements of one type. Values hold Go
// values of the element type (uint8 ... float64, bool, string, or Array).
type Array struct {
	Elem   ValueType
	Values []any
}

// KV is one metadata entry. Value is a Go value matching Type: uint8, int8,
// uint16, int16, uint32, int32, float32, bool, string, Array, uint64, int64
// or float64.
type KV struct {
	Key   string
	Type  ValueType
	Value any
}

// File is a parsed GGUF header: version, metadata and the number of tensors
// (tensor infos and data are not read).
type File struct {
	Version uint32
	KV      []KV
	Tensors uint64
}

// Lookup returns the value of key.
func (f *File) Lookup(key string) (any, bool) {
	for _, kv := range f.KV {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// ReadFile reads the header and metadata of the GGUF file at path.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gguf: read: %w", err)
	}
	defer fh.Close()
	f, err := Read(bufio.NewReaderSize(fh, 1<<16))
	if err != nil {
		return nil, fmt.Errorf("gguf: read %s: %w", path, err)
	}
	return f, nil
}

// Read reads a GGUF header and its metadata from r.
func Read(r io.Reader) (*File, error) {
	d := &decoder{r: r}
	if m := d.u32(); d.err == nil && m != Magic {
		return nil, fmt.Errorf("magic %#x: not a GGUF file", m)
	}
	f := &File{Version: d.u32()}
	if d.err == nil && (f.Version < 2 || f.Version > 3) {
		return nil, fmt.Errorf("version %d: only GGUF v2 and v3 are supported", f.Version)
	}
	f.Tensors = d.u64()
	n := d.u64()
	if d.err == nil && n > maxLen {
		return nil, fmt.Errorf("metadata count %d: too large", n)
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		key := d.str()
		t := ValueType(d.u32())
		v := d.value(t, 0)
		if d.err != nil {
			return nil, fmt.Errorf("metadata %d (%q): %w", i, key, d.err)
		}
		f.KV = append(f.KV, KV{Key: key, Type: t, Value: v})
	}
	if d.err != nil {
		return nil, fmt.Errorf("header: %w", d.err)
	}
	return f, nil
}

type decoder struct {
	r   io.Reader
	buf [8]byte
	err error
}

func (d *decoder) read(n int) []byte {
	if d.err != nil {
		return d.buf[:n]
	}
	if _, err := io.ReadFull(d.r, d.buf[:n]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		d.err = err
	}
	return d.buf[:n]
}

func (d *decoder) u32() uint32 { return binary.LittleEndian.Uint32(d.read(4)) }
func (d *decoder) u64() uint64 { return binary.LittleEndian.Uint64(d.read(8)) }

func (d *decoder) str() string {
	n := d.u64()
	if d.err != nil {
		return ""
	}
	if n > maxLen {
		d.err = fmt.Errorf("string length %d: too large", n)
		return ""
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		d.err = io.ErrUnexpectedEOF
		return ""
	}
	return string(b)
}

func (d *decoder) value(t ValueType, depth int) any {
	switch t {
	case TypeUint8:
		return d.read(1)[0]
	case TypeInt8:
		return int8(d.read(1)[0])
	case TypeUint16:
		return binary.LittleEndian.Uint16(d.read(2))
	case TypeInt16:
		return int16(binary.LittleEndian.Uint16(d.read(2)))
	case TypeUint32:
		return d.u32()
	case TypeInt32:
		return int32(d.u32())
	case TypeFloat32:
		return math.Float32frombits(d.u32())
	case TypeBool:
		return d.read(1)[0] != 0
	case TypeString:
		return d.str()
	case TypeUint64:
		return d.u64()
	case TypeInt64:
		return int64(d.u64())
	case TypeFloat64:
		return math.Float64frombits(d.u64())
	case TypeArray:
		if depth > 2 {
			d.err = errors.New("arrays nested too deeply")
			return nil
		}
		et := ValueType(d.u32())
		n := d.u64()
		if d.err != nil {
			return nil
		}
		if n > maxLen {
			d.err = fmt.Errorf("array length %d: too large", n)
			return nil
		}
		a := Array{Elem: et, Values: make([]any, 0, min(n, 1<<16))}
		for i := uint64(0); i < n && d.err == nil; i++ {
			a.Values = append(a.Values, d.value(et, depth+1))
		}
		return a
	}
	d.err = fmt.Errorf("unknown value type %d", t)
	return nil
}

// encoder writes little-endian GGUF values.
type encoder struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (e *encoder) write(b []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(b)
	e.n += int64(n)
	e.err = err
}

func (e *encoder) u32(v uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	e.write(b[:])
}

func (e *encoder) u64(v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	e.write(b[:])
}

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.write([]byte(s))
}

func (e *encoder) value(t ValueType, v any) {
	if e.err != nil {
		return
	}
	bad := func() { e.err = fmt.Errorf("value %v (%T) does not match type %d", v, v, t) }
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		var b byte
		switch x := v.(type) {
		case uint8:
			b = x
		case int8:
			b = byte(x)
		case bool:
			if x {
				b = 1
			}
		default:
			bad()
			return
		}
		e.write([]byte{b})
	case TypeUint16, TypeInt16:
		var u uint16
		switch x := v.(type) {
		case uint16:
			u = x
		case int16:
			u = uint16(x)
		default:
			bad()
			return
		}
		var b [2]byte
		binary.LittleEndian.PutUint16(b[:], u)
		e.write(b[:])
	case TypeUint32, TypeInt32, TypeFloat32:
		switch x := v.(type) {
		case uint32:
			e.u32(x)
		case int32:
			e.u32(uint32(x))
		case float32:
			e.u32(math.Float32bits(x))
		default:
			bad()
		}
	case TypeUint64, TypeInt64, TypeFloat64:
		switch x := v.(type) {
		case uint64:
			e.u64(x)
		case int64:
			e.u64(uint64(x))
		case float64:
			e.u64(math.Float64bits(x))
		default:
			bad()
		}
	case TypeString:
		s, ok := v.(string)
		if !ok {
			bad()
			return
		}
		e.str(s)
	case TypeArray:
		a, ok := v.(Array)
		if !ok {
			bad()
			return
		}
		e.u32(uint32(a.Elem))
		e.u64(uint64(len(a.Values)))
		for _, x := range a.Values {
			e.value(a.Elem, x)
		}
	default:
		e.err = fmt.Errorf("unknown value type %d", t)
	}
}

// Write writes a GGUF v3 file holding only metadata (no tensors), like
// llama.cpp's vocabulary-only files.
func Write(w io.Writer, kvs []KV) error {
	bw := bufio.NewWriter(w)
	e := &encoder{w: bw}
	e.u32(Magic)
	e.u32(Version)
	e.u64(0)
	e.u64(uint64(len(kvs)))
	for _, x := range kvs {
		e.str(x.Key)
		e.u32(uint32(x.Type))
		e.value(x.Type, x.Value)
	}
	if e.err == nil {
		e.err = bw.Flush()
	}
	if e.err != nil {
		return fmt.Errorf("gguf: write: %w", e.err)
	}
	return nil
}
