// Asynchronous FIFO: Gray-coded pointers cross between the clock domains through two-flop
// synchronizers; the flags are registered from the next pointers.
module async_fifo #(parameter WIDTH = 8, parameter ADDR_W = 4) (
    input  wire             wclk,
    input  wire             wrst_n,
    input  wire             winc,
    input  wire [WIDTH-1:0] wdata,
    output reg              wfull,
    input  wire             rclk,
    input  wire             rrst_n,
    input  wire             rinc,
    output wire [WIDTH-1:0] rdata,
    output reg              rempty
);
    reg [WIDTH-1:0] mem [0:(1 << ADDR_W) - 1];

    // Pointers are one bit wider than the address: the extra bit tells full from empty.
    reg  [ADDR_W:0] wbin, wgray, wq1_rgray, wq2_rgray;
    reg  [ADDR_W:0] rbin, rgray, rq1_wgray, rq2_wgray;

    wire [ADDR_W:0] wbin_next  = wbin + (winc && !wfull);
    wire [ADDR_W:0] wgray_next = (wbin_next >> 1) ^ wbin_next;
    wire [ADDR_W:0] rbin_next  = rbin + (rinc && !rempty);
    wire [ADDR_W:0] rgray_next = (rbin_next >> 1) ^ rbin_next;
    // Full: the write pointer a whole lap ahead, which in Gray code flips the top two bits.
    wire [ADDR_W:0] lap = 3 << (ADDR_W - 1);

    always @(posedge wclk)
        if (winc && !wfull) mem[wbin[ADDR_W-1:0]] <= wdata;
    assign rdata = mem[rbin[ADDR_W-1:0]];

    always @(posedge wclk or negedge wrst_n)
        if (!wrst_n) begin
            {wbin, wgray, wq1_rgray, wq2_rgray} <= 0;
            wfull <= 1'b0;
        end else begin
            wbin <= wbin_next;
            wgray <= wgray_next;
            {wq2_rgray, wq1_rgray} <= {wq1_rgray, rgray};
            wfull <= (wgray_next == (wq2_rgray ^ lap));
        end

    always @(posedge rclk or negedge rrst_n)
        if (!rrst_n) begin
            {rbin, rgray, rq1_wgray, rq2_wgray} <= 0;
            rempty <= 1'b1;
        end else begin
            rbin <= rbin_next;
            rgray <= rgray_next;
            {rq2_wgray, rq1_wgray} <= {rq1_wgray, wgray};
            rempty <= (rgray_next == rq2_wgray);
        end
endmodule
