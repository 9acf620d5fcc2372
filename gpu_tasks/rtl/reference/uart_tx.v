// UART transmitter, 8N1: a 10-bit shift register holds the frame (stop, data, start) and shifts
// in ones, so tx is a flop that reads 1 when idle and after the stop bit.
module uart_tx #(parameter CLKS_PER_BIT = 16) (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       start,
    input  wire [7:0] data,
    output wire       tx,
    output wire       busy
);
    localparam CW = $clog2(CLKS_PER_BIT);
    localparam integer LAST_CLK = CLKS_PER_BIT - 1;

    reg [9:0]    frame;     // frame[0] is on the line
    reg [CW-1:0] clk_cnt;   // cycles of the current bit already shown, minus one
    reg [3:0]    bit_idx;   // 0 start, 1-8 data, 9 stop
    reg          sending;

    assign tx   = frame[0];
    assign busy = sending;

    wire bit_done   = (clk_cnt == LAST_CLK[CW-1:0]);
    wire frame_done = bit_done && (bit_idx == 4'd9);
    // The edge that ends the stop bit is free for the next byte, so frames can run back to back.
    wire accept     = start && (!sending || frame_done);

    always @(posedge clk) begin
        if (!rst_n) begin
            frame   <= 10'h3ff;
            clk_cnt <= {CW{1'b0}};
            bit_idx <= 4'd0;
            sending <= 1'b0;
        end else if (accept) begin
            frame   <= {1'b1, data, 1'b0};
            clk_cnt <= {CW{1'b0}};
            bit_idx <= 4'd0;
            sending <= 1'b1;
        end else if (sending) begin
            if (frame_done) begin
                sending <= 1'b0;
            end else if (bit_done) begin
                frame   <= {1'b1, frame[9:1]};
                clk_cnt <= {CW{1'b0}};
                bit_idx <= bit_idx + 4'd1;
            end else begin
                clk_cnt <= clk_cnt + 1'b1;
            end
        end
    end
endmodule
