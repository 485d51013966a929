// This file models the memory of an nginx shared-memory zone: how many
// limit_req or limit_conn states a zone of a given size holds. nginx keeps
// the states in a slab allocator over the zone's pages (src/core/ngx_slab.c),
// so the bound is not size/state-size but pages times chunks per page, minus
// the pool's own header and the zone's first allocations. edge keeps its
// states in Go maps; this model only decides when a zone is full, so that
// eviction and "could not allocate node" happen at the same state count as
// in nginx (issue 15).

package limit

import "fmt"

// The constants of nginx 1.22 on linux/amd64 (Debian's build).
const (
	pageSize  = 4096
	pageShift = 12
	minShift  = 3 // ngx_slab_pool_t.min_shift, set by ngx_init_zone_pool
	// exactSize is the chunk size whose free bitmap fills a page's slab
	// word exactly (pagesize / (8 * sizeof(uintptr_t))); smaller chunks
	// keep their bitmap in the page itself.
	exactSize = pageSize / (8 * 8)

	slabPoolHeader = 200 // sizeof(ngx_slab_pool_t)
	slabPageStruct = 24  // sizeof(ngx_slab_page_t)
	slabStatStruct = 32  // sizeof(ngx_slab_stat_t)
	slabSlots      = pageShift - minShift

	// rbtreeNodeHead is offsetof(ngx_rbtree_node_t, color): nginx lays a
	// state over an rbtree node from its color byte on.
	rbtreeNodeHead = 32

	// MinZoneSize is the smallest zone nginx accepts for limit_req and
	// limit_conn (8 pages: `zone "x" is too small`).
	MinZoneSize = 8 * pageSize
)

// zonePages is the number of pages ngx_slab_init carves out of a zone of
// size bytes: the pool header, the slot and stat arrays and one page
// descriptor per page come first, and the pages start page-aligned.
func zonePages(size int64) int {
	p := int64(slabPoolHeader + slabSlots*(slabPageStruct+slabStatStruct))
	avail := size - p
	if avail <= 0 {
		return 0
	}
	pages := avail / (pageSize + slabPageStruct)
	start := (p + pages*slabPageStruct + pageSize - 1) &^ (pageSize - 1)
	if m := pages - (size-start)/pageSize; m > 0 {
		pages -= m
	}
	if pages < 0 {
		return 0
	}
	return int(pages)
}

// slab is the page and chunk accounting of one zone. Chunks of one class
// share pages; a page whose last chunk is freed goes back to the free pages,
// as in ngx_slab_free_locked. Allocations over half a page take whole pages
// (ngx_slab_alloc_pages); the model counts them without asking that they be
// contiguous, which only matters for keys longer than about 2 KiB.
type slab struct {
	free    []int32 // free page numbers, used as a stack
	pages   []slabPage
	partial [slabSlots]int32 // head of each class's list of pages with a free chunk; -1 when empty
}

type slabPage struct {
	class      int8  // slot index, or -1 for a free page or one of a multi-page run
	used       int32 // chunks in use
	prev, next int32 // links in the class's partial list
	inList     bool
}

// chunk is where one allocation lives: a slot's page, or a run of pages.
// It is kept with every state, so it is small (16 bytes): a run, which
// only a key of more than about 2 KiB needs, sits behind a pointer.
type chunk struct {
	run  *[]int32 // pages of a multi-page allocation; nil otherwise
	page int32
}

func newSlab(size int64) *slab {
	n := zonePages(size)
	s := &slab{pages: make([]slabPage, n), free: make([]int32, n)}
	for i := range s.pages {
		s.pages[i] = slabPage{class: -1, prev: -1, next: -1}
		s.free[i] = int32(n - 1 - i) // pop lowest first, as nginx takes the first free run
	}
	for i := range s.partial {
		s.partial[i] = -1
	}
	return s
}

// slot returns the slot index of an allocation of size bytes, or -1 when it
// takes whole pages.
func slot(size int) int {
	if size > pageSize/2 {
		return -1
	}
	shift := minShift
	for 1<<shift < size {
		shift++
	}
	return shift - minShift
}

// perPage is how many chunks of a slot one page holds. Small chunks keep
// their bitmap at the start of the page, in whole chunks.
func perPage(sl int) int32 {
	sz := 1 << (sl + minShift)
	n := pageSize / sz
	if sz < exactSize {
		bitmap := (n + 7) / 8
		n -= (bitmap + sz - 1) / sz
	}
	return int32(n)
}

// alloc reserves size bytes and reports false when the zone is full.
func (s *slab) alloc(size int) (chunk, bool) {
	sl := slot(size)
	if sl < 0 {
		n := (size + pageSize - 1) / pageSize
		if len(s.free) < n {
			return chunk{}, false
		}
		run := make([]int32, n)
		for i := range run {
			run[i] = s.pop()
		}
		return chunk{page: run[0], run: &run}, true
	}
	capacity := perPage(sl)
	p := s.partial[sl]
	if p < 0 {
		if len(s.free) == 0 {
			return chunk{}, false
		}
		p = s.pop()
		s.pages[p].class = int8(sl)
		s.pages[p].used = 0
		s.link(sl, p)
	}
	pg := &s.pages[p]
	pg.used++
	if pg.used == capacity {
		s.unlink(sl, p)
	}
	return chunk{page: p}, true
}

// capacity is how many more allocations of size bytes fit; it uses s up.
func (s *slab) capacity(size int) int {
	n := 0
	for {
		if _, ok := s.alloc(size); !ok {
			return n
		}
		n++
	}
}

func (s *slab) release(c chunk) {
	if c.run != nil {
		for _, p := range *c.run {
			s.free = append(s.free, p)
		}
		return
	}
	pg := &s.pages[c.page]
	sl := int(pg.class)
	if sl < 0 || pg.used <= 0 {
		panic(fmt.Sprintf("limit: slab release of a free chunk on page %d", c.page))
	}
	pg.used--
	switch {
	case pg.used == 0:
		if pg.inList {
			s.unlink(sl, c.page)
		}
		pg.class = -1
		s.free = append(s.free, c.page)
	case !pg.inList:
		s.link(sl, c.page)
	}
}

func (s *slab) pop() int32 {
	p := s.free[len(s.free)-1]
	s.free = s.free[:len(s.free)-1]
	return p
}

func (s *slab) link(sl int, p int32) {
	pg := &s.pages[p]
	pg.prev, pg.next, pg.inList = -1, s.partial[sl], true
	if pg.next >= 0 {
		s.pages[pg.next].prev = p
	}
	s.partial[sl] = p
}

func (s *slab) unlink(sl int, p int32) {
	pg := &s.pages[p]
	if pg.prev >= 0 {
		s.pages[pg.prev].next = pg.next
	} else {
		s.partial[sl] = pg.next
	}
	if pg.next >= 0 {
		s.pages[pg.next].prev = pg.prev
	}
	pg.prev, pg.next, pg.inList = -1, -1, false
}
