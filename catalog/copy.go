package catalog

import (
	"reflect"
	"sync"
)

// parsedDefault is the embedded catalog, parsed once: a parse is 3 ms, and
// 27 ms under the race detector, which the tests paid about 600 times.
var parsedDefault = sync.OnceValues(func() (Catalog, error) { return Parse(embeddedCatalog) })

// Default returns the embedded catalog of the tracked services: a copy of
// its one parse, so that a caller may change it without changing another's.
func Default() (Catalog, error) {
	c, err := parsedDefault()
	if err != nil {
		return Catalog{}, err
	}
	return deepCopy(c), nil
}

// deepCopy returns a copy of v that shares no memory with it: every slice,
// map and pointer reachable from v is copied. A catalog holds only those,
// structs, strings, numbers and booleans; deepCopy panics on anything else
// (an interface, a channel, a function), and TestDefaultIsACopy walks the
// Catalog type so that a field of such a kind fails the tests, not a build.
func deepCopy[T any](v T) T {
	var out T
	copyValue(reflect.ValueOf(&out).Elem(), reflect.ValueOf(v))
	return out
}

// copyValue sets dst, which is settable and of src's type, to a deep copy
// of src.
func copyValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Struct:
		for i := range src.NumField() {
			copyValue(dst.Field(i), src.Field(i))
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.MakeSlice(src.Type(), src.Len(), src.Len()))
		for i := range src.Len() {
			copyValue(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.MakeMapWithSize(src.Type(), src.Len()))
		for it := src.MapRange(); it.Next(); {
			v := reflect.New(src.Type().Elem()).Elem()
			copyValue(v, it.Value())
			dst.SetMapIndex(it.Key(), v) // keys are strings: copied by value
		}
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.New(src.Type().Elem()))
		copyValue(dst.Elem(), src.Elem())
	default:
		if !copiedByValue(src.Kind()) {
			panic("catalog: deepCopy of a " + src.Kind().String())
		}
		dst.Set(src)
	}
}

// copiedByValue reports whether deepCopy copies a value of kind k as it is:
// it holds no memory to share.
func copiedByValue(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
