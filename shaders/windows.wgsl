// The table's windows (the layout): one storage binding each, and the accessors that reach
// a word in any window. The host repeats every line that ends in `// each window` once per
// window, with `{w}` standing for the window's number and `{binding}` for its binding (7 + w).

@group(0) @binding(4) var<storage, read_write> lists: array<atomic<u32>>;
@group(0) @binding({binding}) var<storage, read_write> window{w}: array<atomic<u32>>; // each window

fn word_load(w: u32, i: u32) -> u32 {
    var v = 0u;
    switch w {
        case {w}u: { v = atomicLoad(&window{w}[i]); } // each window
        default: {}
    }
    return v;
}

fn word_store(w: u32, i: u32, v: u32) {
    switch w {
        case {w}u: { atomicStore(&window{w}[i], v); } // each window
        default: {}
    }
}

fn word_or(w: u32, i: u32, v: u32) {
    switch w {
        case {w}u: { atomicOr(&window{w}[i], v); } // each window
        default: {}
    }
}

// Compare-and-swap: the old value and whether it was exchanged (1) or not (0).
fn word_cas(w: u32, i: u32, old: u32, value: u32) -> vec2<u32> {
    var r = vec2<u32>(old, 1u);
    switch w {
        case {w}u: { let x = atomicCompareExchangeWeak(&window{w}[i], old, value); r = vec2<u32>(x.old_value, select(0u, 1u, x.exchanged)); } // each window
        default: {}
    }
    return r;
}
