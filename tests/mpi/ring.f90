! ring.f90 - an ordinary Fortran MPI program (use mpi): a token of 1000 doubles goes three times
! around the ring, every rank adding its rank to each element, then MPI_Allreduce (sum and max)
! and MPI_Bcast; every result is checked.
!
! usage: ring   (rank 0 prints "ring.f90: OK (N ranks)"; a mismatch prints
!                "ring.f90: rank R: WHAT: element I is X, expected Y" and aborts with status 1)
program ring
  use mpi
  implicit none
  integer, parameter :: n = 1000, laps = 3
  integer :: ierr, me, np, lap, i, req
  integer :: status(MPI_STATUS_SIZE)
  double precision :: token(n), sums(n), mine(n)
  integer :: maxima(n), ranks(n)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

  ! The ring: rank 0 starts the token with token(i) = i and receives it back after each lap
  ! (non-blocking send, so that one rank alone passes the token to itself).
  if (me == 0) then
    token = [(dble(i), i = 1, n)]
  end if
  do lap = 1, laps
    if (me == 0) then
      call MPI_Isend(token, n, MPI_DOUBLE_PRECISION, mod(me + 1, np), lap, MPI_COMM_WORLD, req, ierr)
      call MPI_Recv(token, n, MPI_DOUBLE_PRECISION, mod(me + np - 1, np), lap, MPI_COMM_WORLD, status, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Recv(token, n, MPI_DOUBLE_PRECISION, me - 1, lap, MPI_COMM_WORLD, status, ierr)
      token = token + dble(me)
      call MPI_Send(token, n, MPI_DOUBLE_PRECISION, mod(me + 1, np), lap, MPI_COMM_WORLD, ierr)
    end if
  end do
  if (me == 0) then
    do i = 1, n
      call expect('ring token', i, token(i), dble(i) + dble(laps) * dble(np) * dble(np - 1) / 2d0)
    end do
  end if

  ! MPI_Allreduce: sum of (rank + 1) * i, and max of rank * i.
  mine = [((me + 1) * dble(i), i = 1, n)]
  call MPI_Allreduce(mine, sums, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  ranks = [(me * i, i = 1, n)]
  call MPI_Allreduce(ranks, maxima, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  do i = 1, n
    call expect('MPI_Allreduce(MPI_SUM)', i, sums(i), dble(np) * dble(np + 1) / 2d0 * dble(i))
    call expect('MPI_Allreduce(MPI_MAX)', i, dble(maxima(i)), dble((np - 1) * i))
  end do

  ! MPI_Bcast from the last rank.
  if (me == np - 1) then
    ranks = [(7 * i + me, i = 1, n)]
  else
    ranks = -1
  end if
  call MPI_Bcast(ranks, n, MPI_INTEGER, np - 1, MPI_COMM_WORLD, ierr)
  do i = 1, n
    call expect('MPI_Bcast', i, dble(ranks(i)), dble(7 * i + np - 1))
  end do

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (me == 0) then
    write (*, '(a, i0, a)') 'ring.f90: OK (', np, ' ranks)'
  end if
  call MPI_Finalize(ierr)

contains

  ! Aborts the job with a line naming the rank, the check, the element and both values.
  subroutine expect(what, i, got, want)
    use, intrinsic :: iso_fortran_env, only: error_unit
    character(len=*), intent(in) :: what
    integer, intent(in) :: i
    double precision, intent(in) :: got, want
    integer :: ierr2
    if (got /= want) then
      write (error_unit, '(a, i0, a, a, a, i0, a, g0, a, g0)') 'ring.f90: rank ', me, ': ', what, &
        ': element ', i, ' is ', got, ', expected ', want
      flush (error_unit)
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr2)
    end if
  end subroutine expect
end program ring
